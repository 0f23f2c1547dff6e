import type { Node, TensorValue } from "@ppl/tensor";
import type { VulkanBuffer } from "../buffer.ts";
import { VulkanError } from "../errors.ts";
import { compileGlsl } from "../glslc.ts";
import { VulkanManager } from "../manager.ts";
import type { Sequence } from "../sequence.ts";
import { batchedGradient } from "./batched-gradient.ts";
import { chooseControllerMode, workgroupController, CONTROLLER_BUFFERS, controllerGroups, controllerProgram, controllerStateSizes, type ControllerMode } from "./controller-program.ts";
import { NUTS_FIXED_BUFFERS, nutsProgram } from "./nuts-program.ts";
import type { MetricForm } from "./metric-source.ts";
import { chainProgress, stepsToSubmit } from "./steps-per-submit.ts";

/** The parts of a compiled model the GPU sampler needs (structurally the ppl CompiledModel). */
export interface GpuModel {
  readonly logDensity: Node;
  readonly q: Node;
  readonly dataBindings: Readonly<Record<string, TensorValue>>;
}

/** Settings the GPU runner reads from the run (structurally ppl's ResolvedSampleSettings). */
interface RunSettings {
  readonly chains: number;
  readonly warmup: number;
  readonly draws: number;
  readonly seed: number;
  readonly firstChain: number;
  readonly metric: string;
  readonly maxDepth: number;
}

/** A chain batch as the sampler keeps it (structurally ppl's ChainBatch). */
interface Batch {
  readonly chains: number;
  readonly dim: number;
  readonly q: Float64Array;
  readonly lp: Float64Array;
  readonly grad: Float64Array;
  readonly evaluations: Float64Array;
}

interface Stats {
  acceptStat: number;
  treeDepth: number;
  nLeapfrog: number;
  divergent: boolean;
  energy: number;
}

/** How the chains' transitions are laid out on the device (DESIGN.md, "The sampler on the GPU"). */
export type ExecutionShape = "thread" | "workgroup" | "device";

/** Options of the GPU NUTS runner. */
export interface GpuNutsOptions {
  readonly chains: number;
  readonly maxDepth: number;
  readonly dtype?: "f32" | "f64";
  /** Device index (default: the best usable device). */
  readonly device?: number;
  /** Sampling iterations recorded per submission (warmup runs one per submission so the host can adapt). */
  readonly iterationsPerSubmit?: number;
  /** Execution shape; default: chosen from the model's size (see chooseShape). */
  readonly shape?: ExecutionShape;
  /** Threads per chain in the workgroup shape (a power of two); default from the model's size. */
  readonly workgroup?: number;
  /** Device shape: how the NUTS controller maps chains onto threads; default from the dimension. */
  readonly controller?: ControllerMode;
  /** The metric the run adapts: diagonal (default) or dense. */
  readonly metric?: MetricForm;
}

/**
 * Thread per chain while one gradient is little work (a few thousand data elements); a workgroup
 * per chain for moderate data, so each chain's data loop runs many threads wide; beyond that, or
 * when many chains share moderate data, the whole device computes each gradient for all chains at
 * once, reading the data once per leapfrog. On the H200 (bench/RESULTS.md) 1024 chains over 10k
 * data elements ran 1.4× faster in the device shape than a workgroup per chain.
 */
export function chooseShape(dataElements: number, chains = 1): ExecutionShape {
  if (dataElements <= 2_000) return "thread";
  return dataElements <= 20_000 && dataElements * chains < 1_000_000 ? "workgroup" : "device";
}

/** Threads per chain in the workgroup shape: enough to spread the data loop, a power of two. */
export function chooseWorkgroup(dataElements: number): number {
  return dataElements < 50_000 ? 64 : 256;
}

/** A prepared GPU NUTS kernel; `factory` plugs into the sampler's `transitionRunner` option. */
export interface GpuNuts {
  readonly device: string;
  readonly dtype: "f32" | "f64";
  readonly shape: ExecutionShape;
  readonly source: string;
  factory(ctx: { settings: RunSettings; dim: number; metrics: readonly RunMetric[] }): {
    run(t: number, stepSizes: Float64Array, batch: Batch, stats: Stats[]): void;
  };
  /**
   * The host's density for the sampler's own evaluations (initialization, step-size searches),
   * with its batched log density and gradient moved to the device when the device shape has
   * kernels for it; otherwise the host density itself.
   */
  hostDensity<T extends HostDensity>(host: T): T;
  /** Submissions so far, and (device shape) the controller + gradient steps they ran. */
  readonly counters: { readonly submits: number; readonly steps: number };
  dispose(): void;
}

/** A chain's metric as the sampler keeps it (structurally ppl's Metric). */
interface RunMetric {
  /** M⁻¹: the diagonal, or the dense matrix row-major. */
  readonly inverse: Float64Array;
  /** Momentum from standard normals, p = L⁻ᵀ·z for a dense metric (linear in z). */
  momentumFromNormals(z: Float64Array, out: Float64Array): void;
}

/** A batched density as the sampler calls it (structurally ppl's BatchedDensity). */
export interface HostDensity {
  readonly dim: number;
  logpGrad(q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array): void;
}

/** The sampler's buffers 0–7 (shaders/nuts/common.glsl), shared by every execution shape. */
interface StateBuffers {
  readonly q: VulkanBuffer;
  readonly g: VulkanBuffer;
  readonly lp: VulkanBuffer;
  readonly eps: VulkanBuffer;
  readonly minv: VulkanBuffer;
  readonly ctrl: VulkanBuffer;
  readonly stats: VulkanBuffer;
  readonly draws: VulkanBuffer;
}

/** Runs blocks of iterations on the device: `run(k)` advances every chain by k transitions. */
interface Engine {
  readonly source: string;
  run(k: number): void;
  /** Submissions and the controller + gradient steps they ran (device shape; zero otherwise). */
  readonly counters: { submits: number; steps: number };
  /** lp and gradient of all chains at once on the device, where the shape has batched kernels. */
  readonly logpGrad?: (q: Float64Array, lp: Float64Array, grad: Float64Array) => void;
  dispose(): void;
}

/**
 * Compile a model's NUTS transition for the GPU and return a runner for the sampler. Thread and
 * workgroup shapes: every iteration's transitions of all chains are one dispatch of one fused
 * kernel. Device shape: a batched gradient over all chains alternates with a controller kernel,
 * many pairs per submission, the host polling a done counter. In every shape the host adapts
 * between warmup iterations, and during sampling many iterations run per submission and their
 * draws come back in batches.
 */
export async function prepareGpuNuts(model: GpuModel, opts: GpuNutsOptions): Promise<GpuNuts> {
  const manager = new VulkanManager(opts.device);
  const dtype = opts.dtype ?? "f32";
  if (dtype === "f64" && !manager.device.features.shaderFloat64) {
    manager.destroy();
    throw new Error(`device '${manager.device.name}' has no shaderFloat64: use dtype f32`);
  }
  const work = Object.values(model.dataBindings).reduce((s, v) => s + v.data.length, 0) + model.q.size;
  const shape = opts.shape ?? chooseShape(work, opts.chains);
  const C = opts.chains;
  const D = model.q.size;
  const bytes = dtype === "f64" ? 8 : 4;
  const Real = dtype === "f64" ? Float64Array : Float32Array;
  const K = Math.max(1, opts.iterationsPerSubmit ?? 100);
  const buf = (n: number) => manager.buffer(Math.max(4, n * bytes));
  const metric = opts.metric ?? "diag";
  // Dense: per chain M⁻¹ and the momentum transform A = L⁻ᵀ, each D×D (shaders/nuts/common.glsl).
  const metricSize = metric === "dense" ? 2 * D * D : D;
  const state: StateBuffers = {
    q: buf(C * D), g: buf(C * D), lp: buf(C), eps: buf(C), minv: buf(C * metricSize),
    ctrl: manager.buffer(32), stats: buf(K * C * 6), draws: buf(K * C * D),
  };
  const engine = shape === "device"
    ? await deviceEngine(manager, model, state, { chains: C, maxDepth: opts.maxDepth, dtype, controller: opts.controller, metric })
    : await fusedEngine(manager, model, state, { chains: C, maxDepth: opts.maxDepth, dtype, shape, workgroup: opts.workgroup ?? chooseWorkgroup(work), metric });
  const info = manager.device;
  return {
    device: `${info.name} (${info.type})`,
    dtype,
    shape,
    source: engine.source,
    counters: engine.counters,
    factory(ctx) {
      const s = ctx.settings;
      if (s.metric !== metric) throw new Error(`GPU sampler prepared for a ${metric} metric, the run adapts a ${s.metric} one`);
      if (s.chains !== C || s.maxDepth !== opts.maxDepth) throw new Error("GPU sampler prepared for other chains/max depth");
      const total = s.warmup + s.draws;
      // The dense transform changes only when adaptation replaces M⁻¹: rebuild a chain's on change.
      const seen = ctx.metrics.map(() => new Float64Array(0));
      const values = new Real(C * metricSize);
      const metricValues = (metrics: readonly RunMetric[]) => {
        metrics.forEach((m, c) => {
          if (metric === "diag") values.set(m.inverse, c * D);
          else if (!sameValues(seen[c]!, m.inverse)) {
            seen[c] = Float64Array.from(m.inverse);
            values.set(m.inverse, c * metricSize);
            values.set(momentumTransform(m, D), c * metricSize + D * D);
          }
        });
        return values;
      };
      // Results of the current block of sampling iterations: [start, start + count).
      let start = -1, count = 0;
      let stats = new Real(0), draws = new Real(0);
      const upload = (t: number, k: number, stepSizes: Float64Array, batch: Batch) => {
        state.q.write(Real.from(batch.q));
        state.g.write(Real.from(batch.grad));
        state.lp.write(Real.from(batch.lp));
        state.eps.write(Real.from(stepSizes));
        state.minv.write(metricValues(ctx.metrics));
        const seedLo = s.seed % 2 ** 32 >>> 0, seedHi = Math.floor(s.seed / 2 ** 32) >>> 0;
        state.ctrl.write(new Uint32Array([seedLo, seedHi, t, s.firstChain, k]));
      };
      return {
        run(t, stepSizes, batch, out) {
          if (!(t >= start && t < start + count)) {
            const k = t < s.warmup ? 1 : Math.min(K, total - t);
            upload(t, k, stepSizes, batch);
            engine.run(k);
            stats = new Real(state.stats.read(k * C * 6 * bytes));
            draws = new Real(state.draws.read(k * C * D * bytes));
            start = t;
            count = k;
            // The block's last draws are the chains' state; their gradient comes back with them.
            const g = new Real(state.g.read(C * D * bytes));
            for (let i = 0; i < C * D; i++) batch.grad[i] = g[i]!;
          }
          const slot = t - start;
          for (let c = 0; c < C; c++) {
            const o = (slot * C + c) * 6;
            const st = out[c]!;
            st.acceptStat = stats[o]!;
            st.treeDepth = stats[o + 1]!;
            st.nLeapfrog = stats[o + 2]!;
            st.divergent = stats[o + 3]! !== 0;
            st.energy = stats[o + 4]!;
            batch.lp[c] = stats[o + 5]!;
            batch.evaluations[c] = batch.evaluations[c]! + st.nLeapfrog;
            for (let i = 0; i < D; i++) batch.q[c * D + i] = draws[(slot * C + c) * D + i]!;
          }
        },
      };
    },
    hostDensity(host) {
      const onDevice = engine.logpGrad;
      if (!onDevice) return host;
      // Calls for the whole batch go to the device; anything else (single chains) stays on the host.
      const logpGrad = (q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array) =>
        lp.length === C && q.length === C * D ? onDevice(q, lp, grad) : host.logpGrad(q, lp, grad, active);
      return Object.create(host, { logpGrad: { value: logpGrad } }) as typeof host;
    },
    dispose() {
      engine.dispose();
      Object.values(state).forEach((b: VulkanBuffer) => b.destroy());
      manager.destroy();
    },
  };
}

/** Shapes 1 and 2: the whole transition of every chain in one dispatch of one fused kernel. */
async function fusedEngine(
  manager: VulkanManager,
  model: GpuModel,
  state: StateBuffers,
  opts: { chains: number; maxDepth: number; dtype: "f32" | "f64"; shape: "thread" | "workgroup"; workgroup: number; metric: MetricForm },
): Promise<Engine> {
  const C = opts.chains;
  const program = nutsProgram(model.logDensity, model.q, opts);
  const algorithm = manager.algorithm(await compileGlsl(program.source, { optimize: false }), {
    buffers: NUTS_FIXED_BUFFERS + 1 + program.data.length,
    pushConstantSize: 4,
  });
  const Real = opts.dtype === "f64" ? Float64Array : Float32Array;
  const dataBuffers: VulkanBuffer[] = program.data.map((n) => {
    const values = n.op === "const" ? (n.attrs.value as Float64Array) : model.dataBindings[n.attrs.name!]?.data;
    if (!values) throw new Error(`GPU sampler: no data bound for '${n.attrs.name}'`);
    const arr = n.dtype === "i32" || n.dtype === "bool" ? Int32Array.from(values) : Real.from(values);
    return manager.bufferFrom(arr);
  });
  // Thread shape: one slice per thread of every dispatched workgroup (threads past the last chain exit early).
  const groups = opts.shape === "workgroup" ? C : Math.ceil(C / program.localSize);
  const slices = opts.shape === "workgroup" ? C : groups * program.localSize;
  const scratch = manager.buffer(Math.max(4, slices * Math.max(1, program.scratch) * Real.BYTES_PER_ELEMENT));
  const buffers = [state.q, state.g, state.lp, state.eps, state.minv, state.ctrl, state.stats, state.draws, scratch, ...dataBuffers];
  const sequences = new Map<number, Sequence>();
  const sequenceFor = (k: number): Sequence => {
    let s = sequences.get(k);
    if (!s) {
      s = manager.sequence();
      for (let i = 0; i < k; i++) s.dispatch(algorithm, buffers, groups, new Uint32Array([i]));
      sequences.set(k, s);
    }
    return s;
  };
  const counters = { submits: 0, steps: 0 };
  return {
    source: program.source,
    counters,
    run(k) {
      sequenceFor(k).submitSync();
      counters.submits++;
    },
    dispose() {
      sequences.forEach((s) => s.destroy());
      algorithm.destroy();
      [scratch, ...dataBuffers].forEach((b) => b.destroy());
    },
  };
}

/** Most controller + gradient pairs recorded in one submission. */
const MAX_STEPS_PER_SUBMIT = 1024;

/**
 * Shape 3: the batched gradient of all chains (multi-workgroup kernels) alternating with the NUTS
 * controller, S pairs per submission; the host resubmits until every chain has finished the block.
 */
async function deviceEngine(
  manager: VulkanManager,
  model: GpuModel,
  state: StateBuffers,
  opts: { chains: number; maxDepth: number; dtype: "f32" | "f64"; controller?: ControllerMode; metric: MetricForm },
): Promise<Engine> {
  const C = opts.chains;
  const D = model.q.size;
  const bytes = opts.dtype === "f64" ? 8 : 4;
  const gradient = await batchedGradient(manager, model, C, opts.dtype);
  const build = async (mode: ControllerMode) => {
    const source = controllerProgram(D, { chains: C, maxDepth: opts.maxDepth, dtype: opts.dtype, mode, metric: opts.metric });
    return { mode, source, controller: manager.algorithm(await compileGlsl(source, { optimize: false }), { buffers: CONTROLLER_BUFFERS }) };
  };
  const chosen = opts.controller ?? chooseControllerMode(D, opts.maxDepth);
  let built;
  try {
    built = await build(chosen);
  } catch (e) {
    // A driver may refuse the thread-per-chain controller's private arrays; the workgroup one keeps them small.
    if (opts.controller || chosen.kind !== "thread" || !(e instanceof VulkanError)) throw e;
    built = await build(workgroupController(D));
  }
  const { mode, source, controller } = built;
  const sizes = controllerStateSizes(D, opts.maxDepth);
  const vectors = manager.buffer(C * sizes.vectors * bytes);
  const reals = manager.buffer(C * sizes.reals * bytes);
  const ints = manager.buffer(C * sizes.ints * 4);
  const done = manager.buffer(4);
  const controllerBuffers = [
    state.q, state.g, state.lp, state.eps, state.minv, state.ctrl, state.stats, state.draws,
    vectors, reals, ints, done, gradient.q, gradient.lp, gradient.grad,
  ];
  const sequences = new Map<number, Sequence>();
  const sequenceFor = (steps: number): Sequence => {
    let s = sequences.get(steps);
    if (!s) {
      s = manager.sequence();
      for (let i = 0; i < steps; i++) {
        s.dispatch(controller, controllerBuffers, controllerGroups(C, mode));
        for (const d of gradient.step) s.dispatch(d.algorithm, d.buffers, d.groups);
      }
      sequences.set(steps, s);
    }
    return s;
  };
  // Leapfrogs per transition of the slowest chain in the last block: the pace the next block is planned by.
  let perIteration = 4;
  const Real = opts.dtype === "f64" ? Float64Array : Float32Array;
  const counters = { submits: 0, steps: 0 };
  const evaluate = manager.sequence();
  gradient.step.forEach((d) => evaluate.dispatch(d.algorithm, d.buffers, d.groups));
  return {
    source: `${source}
// ---- batched gradient
${gradient.source}`,
    counters,
    logpGrad(q, lp, grad) {
      // Safe between blocks: every chain is idle and the next block starts without reading these buffers.
      gradient.q.write(Real.from(q));
      evaluate.submitSync();
      lp.set(new Real(gradient.lp.read(C * bytes)));
      grad.set(new Real(gradient.grad.read(C * D * bytes)));
    },
    run(k) {
      ints.write(new Int32Array(C * sizes.ints));
      done.write(new Uint32Array(1));
      let progress = chainProgress(new Int32Array(C * sizes.ints), C);
      for (;;) {
        const steps = stepsToSubmit(progress, k, perIteration, MAX_STEPS_PER_SUBMIT);
        sequenceFor(steps).submitSync();
        counters.submits++;
        counters.steps += steps;
        if (new Uint32Array(done.read(4))[0]! >= C) break;
        progress = chainProgress(new Int32Array(ints.read(C * sizes.ints * 4)), C);
      }
      const stats = state.stats.read(k * C * 6 * bytes);
      const st = opts.dtype === "f64" ? new Float64Array(stats) : new Float32Array(stats);
      let slowest = 0;
      for (let c = 0; c < C; c++) {
        let leaps = 0;
        for (let i = 0; i < k; i++) leaps += st[(i * C + c) * 6 + 2]!;
        slowest = Math.max(slowest, leaps);
      }
      perIteration = Math.max(1, slowest / k);
    },
    dispose() {
      sequences.forEach((s) => s.destroy());
      evaluate.destroy();
      controller.destroy();
      [vectors, reals, ints, done].forEach((b) => b.destroy());
      gradient.dispose();
    },
  };
}

function sameValues(a: Float64Array, b: Float64Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** The matrix A with p = A·z of a dense metric, column by column from the metric's own transform. */
function momentumTransform(m: RunMetric, dim: number): Float64Array {
  const a = new Float64Array(dim * dim);
  const e = new Float64Array(dim), col = new Float64Array(dim);
  for (let j = 0; j < dim; j++) {
    e.fill(0);
    e[j] = 1;
    m.momentumFromNormals(e, col);
    for (let i = 0; i < dim; i++) a[i * dim + j] = col[i]!;
  }
  return a;
}

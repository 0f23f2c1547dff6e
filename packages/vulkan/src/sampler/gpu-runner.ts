import type { Node, TensorValue } from "@ppl/tensor";
import type { Algorithm } from "../algorithm.ts";
import type { VulkanBuffer } from "../buffer.ts";
import { compileGlsl } from "../glslc.ts";
import { VulkanManager } from "../manager.ts";
import type { Sequence } from "../sequence.ts";
import { NUTS_FIXED_BUFFERS, nutsProgram } from "./nuts-program.ts";

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
  readonly shape?: "thread" | "workgroup";
  /** Threads per chain in the workgroup shape (a power of two); default from the model's size. */
  readonly workgroup?: number;
}

/**
 * Thread per chain while one gradient is little work (a few thousand data elements); beyond that
 * a workgroup shares each chain's gradient, so the data loop runs many threads wide.
 */
export function chooseShape(dataElements: number): "thread" | "workgroup" {
  return dataElements <= 2_000 ? "thread" : "workgroup";
}

/** Threads per chain in the workgroup shape: enough to spread the data loop, a power of two. */
export function chooseWorkgroup(dataElements: number): number {
  return dataElements < 50_000 ? 64 : 256;
}

/** A prepared GPU NUTS kernel; `factory` plugs into the sampler's `transitionRunner` option. */
export interface GpuNuts {
  readonly device: string;
  readonly dtype: "f32" | "f64";
  readonly shape: "thread" | "workgroup";
  readonly source: string;
  factory(ctx: { settings: RunSettings; dim: number; metrics: readonly { inverse: Float64Array }[] }): {
    run(t: number, stepSizes: Float64Array, batch: Batch, stats: Stats[]): void;
  };
  dispose(): void;
}

/**
 * Compile a model's NUTS transition into one Vulkan compute shader, thread per chain, and return
 * a runner for the sampler: every iteration's transitions of all chains are one dispatch with no
 * host round trip inside; during warmup the host adapts between iterations, during sampling many
 * iterations are recorded per submission and their draws streamed back in batches.
 */
export async function prepareGpuNuts(model: GpuModel, opts: GpuNutsOptions): Promise<GpuNuts> {
  const manager = new VulkanManager(opts.device);
  const dtype = opts.dtype ?? "f32";
  if (dtype === "f64" && !manager.device.features.shaderFloat64) {
    throw new Error(`device '${manager.device.name}' has no shaderFloat64: use dtype f32`);
  }
  const work = Object.values(model.dataBindings).reduce((s, v) => s + v.data.length, 0) + model.q.size;
  const shape = opts.shape ?? chooseShape(work);
  const program = nutsProgram(model.logDensity, model.q, {
    chains: opts.chains, maxDepth: opts.maxDepth, dtype, shape, workgroup: opts.workgroup ?? chooseWorkgroup(work),
  });
  const spirv = await compileGlsl(program.source, { optimize: false });
  const algorithm: Algorithm = manager.algorithm(spirv, {
    buffers: NUTS_FIXED_BUFFERS + 1 + program.data.length,
    pushConstantSize: 4,
  });
  const C = opts.chains;
  const D = model.q.size;
  const bytes = dtype === "f64" ? 8 : 4;
  const Real = dtype === "f64" ? Float64Array : Float32Array;
  const K = Math.max(1, opts.iterationsPerSubmit ?? 100);
  const buf = (n: number) => manager.buffer(Math.max(4, n * bytes));
  const bq = buf(C * D), bg = buf(C * D), blp = buf(C), beps = buf(C), bminv = buf(C * D);
  const bctrl = manager.buffer(16);
  const bstats = buf(K * C * 6), bdraws = buf(K * C * D);
  const dataBuffers: VulkanBuffer[] = program.data.map((n) => {
    const values = n.op === "const" ? (n.attrs.value as Float64Array) : model.dataBindings[n.attrs.name!]?.data;
    if (!values) throw new Error(`GPU sampler: no data bound for '${n.attrs.name}'`);
    const arr = n.dtype === "i32" || n.dtype === "bool" ? Int32Array.from(values) : Real.from(values);
    return manager.bufferFrom(arr);
  });
  // Thread shape: one slice per thread of every dispatched workgroup (threads past the last chain exit early).
  const slices = shape === "workgroup" ? C : Math.ceil(C / program.localSize) * program.localSize;
  const scratch = buf(slices * Math.max(1, program.scratch));
  const buffers = [bq, bg, blp, beps, bminv, bctrl, bstats, bdraws, scratch, ...dataBuffers];
  const sequences = new Map<number, Sequence>();
  const groups = shape === "workgroup" ? C : Math.ceil(C / program.localSize);
  const sequenceFor = (k: number): Sequence => {
    let s = sequences.get(k);
    if (!s) {
      s = manager.sequence();
      for (let i = 0; i < k; i++) s.dispatch(algorithm, buffers, groups, new Uint32Array([i]));
      sequences.set(k, s);
    }
    return s;
  };
  const info = manager.device;
  return {
    device: `${info.name} (${info.type})`,
    dtype,
    shape,
    source: program.source,
    factory(ctx) {
      const s = ctx.settings;
      if (s.metric !== "diag") throw new Error("the GPU sampler supports the diagonal metric only; use --metric diag or the CPU backend");
      if (s.chains !== C || s.maxDepth !== opts.maxDepth) throw new Error("GPU sampler prepared for other chains/max depth");
      const total = s.warmup + s.draws;
      // Results of the current block of sampling iterations: [start, start + count).
      let start = -1, count = 0;
      let stats = new Real(0), draws = new Real(0);
      const upload = (t: number, stepSizes: Float64Array, batch: Batch) => {
        bq.write(Real.from(batch.q));
        bg.write(Real.from(batch.grad));
        blp.write(Real.from(batch.lp));
        beps.write(Real.from(stepSizes));
        const minv = new Real(C * D);
        ctx.metrics.forEach((m, c) => minv.set(m.inverse, c * D));
        bminv.write(minv);
        const seedLo = s.seed % 2 ** 32 >>> 0, seedHi = Math.floor(s.seed / 2 ** 32) >>> 0;
        bctrl.write(new Uint32Array([seedLo, seedHi, t, s.firstChain]));
      };
      return {
        run(t, stepSizes, batch, out) {
          if (!(t >= start && t < start + count)) {
            const k = t < s.warmup ? 1 : Math.min(K, total - t);
            upload(t, stepSizes, batch);
            sequenceFor(k).submitSync();
            stats = new Real(bstats.read(k * C * 6 * bytes));
            draws = new Real(bdraws.read(k * C * D * bytes));
            start = t;
            count = k;
            // The block's last draws are the chains' state; their gradient comes back with them.
            const g = new Real(bg.read(C * D * bytes));
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
    dispose() {
      sequences.forEach((q) => q.destroy());
      algorithm.destroy();
      buffers.forEach((b) => b.destroy());
      manager.destroy();
    },
  };
}

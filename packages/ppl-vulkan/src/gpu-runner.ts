import { gradientGraph, type ChainBatch, type PreparedRunner, type RunnerStats, type RunPlan } from "@ppl/ppl";
import type { Sequence, VulkanBuffer } from "@ppl/vulkan";
import { openDevice, releaseDevice } from "./device-pool.ts";
import { deviceEngine } from "./device-engine.ts";
import type { ControllerMode } from "./controller-program.ts";
import type { KernelProfile, Engine, EngineCounters, GpuModel, StateBuffers } from "./engine.ts";
import { STAT, stepSizeLayout, TRANSITION_STATS } from "./nuts-layout.ts";
import { chooseShape, chooseStepSizeSearch, chooseWorkgroup, largestFactorisation, longestScan, rowPassDecides, type ExecutionShape } from "./execution-shape.ts";
import { fusedEngine } from "./fused-engine.ts";
import { checkDataPrecision, halfDataNote } from "./data-precision.ts";
import { metricBufferWriter, metricSize } from "./metric-buffer.ts";
import type { MetricForm } from "./metric-source.ts";
import { rendersRowPass } from "./logp-function.ts";

export type { GpuModel } from "./engine.ts";

/**
 * Largest buffer that a block's stats, draws and gradient are copied into to come back in one
 * read: a read through staging memory costs an H200's host about a millisecond whatever its size
 * (1.1 ms for 4 KB, 3.7 ms for 4 MB), and the device copies in microseconds. Past this the copy
 * would double the device memory of the draws, so they come back in three reads.
 */
const MAX_READBACK_BYTES = 64 * 2 ** 20;
export { chooseShape, chooseStepSizeSearch, chooseWorkgroup, type ExecutionShape } from "./execution-shape.ts";

/** Options of the GPU NUTS runner: ppl's run plan, with the GPU's own layout settings. */
export interface GpuNutsOptions extends Omit<RunPlan, "dtype" | "metric" | "shape"> {
  readonly dtype?: "f32" | "f64";
  /** Most iterations recorded per submission (warmup blocks also end where the host updates the metric). */
  readonly iterationsPerSubmit?: number;
  /**
   * Thread and workgroup shapes: a block's iterations in one dispatch, each chain running them by
   * itself ("block", the default on GPUs), or one dispatch per iteration (1, the default on a CPU
   * implementation of Vulkan, whose shader loops stop after 65,535 iterations).
   */
  readonly iterationsPerDispatch?: "block" | 1;
  /** Execution shape; default: chosen from the model's size and the device (see chooseShape). */
  readonly shape?: ExecutionShape;
  /** Threads per chain in the workgroup shape (a power of two); default from the model's size. */
  readonly workgroup?: number;
  /** Device shape: how the NUTS controller maps chains onto threads; default from the dimension. */
  readonly controller?: ControllerMode;
  /** The metric the run adapts: diagonal (default) or dense. */
  readonly metric?: MetricForm;
  /**
   * Thread and workgroup shapes: where warmup's step-size searches evaluate the density (through
   * GpuNuts.hostDensity), on the device with a batched gradient built beside the fused kernel, or
   * on the host; default from the data and the chains (chooseStepSizeSearch). The device shape
   * always searches on the device.
   */
  readonly stepSizeSearch?: "host" | "device";
  /**
   * Time the parts of the NUTS kernel's work with the device's cycle counter (GpuNuts.profile): the
   * device shape's controller calls, or the fused shapes' leapfrogs. The device needs shaderSubgroupClock.
   */
  readonly profile?: boolean;
}

/** A prepared GPU NUTS kernel; `factory` plugs into the sampler's `transitionRunner` option. */
export interface GpuNuts extends PreparedRunner {
  readonly device: string;
  /** The Vulkan device's type: "discrete", "integrated", "cpu" (lavapipe), … */
  readonly deviceType: string;
  readonly dtype: "f32" | "f64";
  readonly shape: ExecutionShape;
  readonly source: string;
  /** Submissions so far, (device shape) the controller + gradient steps they ran, and the command sequences recorded for them. */
  readonly counters: Readonly<EngineCounters>;
  /** With `profile`: where the controller's calls or the fused transition's leapfrogs spent their cycles so far. */
  readonly profile?: () => KernelProfile;
}

/**
 * Compile a model's NUTS transition for the GPU and return a runner for the sampler. Thread and
 * workgroup shapes: a block of iterations of all chains is one dispatch of one fused kernel, each
 * chain running its transitions by itself. Device shape: a batched gradient over all chains alternates with a controller kernel,
 * many pairs per submission, the host polling a done counter. In every shape many iterations run
 * per submission and their draws come back in batches: during warmup the device carries the
 * step-size adaptation (dual averaging) from one iteration to the next, and a block ends where the
 * host must update the metric; the host repeats the same updates from the reported statistics.
 */
export async function prepareGpuNuts(model: GpuModel, opts: GpuNutsOptions): Promise<GpuNuts> {
  // A device left open by an earlier run in this process is reused (device-pool.ts).
  const manager = openDevice(opts.device);
  const dtype = opts.dtype ?? "f32";
  if (dtype === "f64" && !manager.device.features.shaderFloat64) {
    releaseDevice(opts.device, manager);
    throw new Error(`device '${manager.device.name}' has no shaderFloat64: use dtype f32`);
  }
  const dataPrecision = opts.dataPrecision ?? "exact";
  try {
    checkDataPrecision(manager.device, dataPrecision);
  } catch (e) {
    releaseDevice(opts.device, manager);
    throw e;
  }
  // Sizes from the shapes: a binding's f64 data may not exist until read (check-data.ts).
  const work = Object.values(model.dataBindings).reduce((s, v) => s + v.shape.reduce((a, b) => a * b, 1), 0) + model.q.size;
  const shape = opts.shape ?? chooseShape(work, opts.chains, manager.device.type, largestFactorisation(model.logDensity), longestScan(model.logDensity), rowPassAt(model, work, opts.chains, dtype, manager.device.type));
  const C = opts.chains;
  const D = model.q.size;
  const bytes = dtype === "f64" ? 8 : 4;
  const Real = dtype === "f64" ? Float64Array : Float32Array;
  const K = Math.max(1, opts.iterationsPerSubmit ?? 100);
  const buf = (n: number) => manager.buffer(Math.max(4, n * bytes));
  const metric = opts.metric ?? "diag";
  const stepLayout = stepSizeLayout(C);
  const NSTATS = TRANSITION_STATS.length;
  const state: StateBuffers = {
    q: buf(C * D), g: buf(C * D), lp: buf(C), eps: buf(stepLayout.length), minv: buf(C * metricSize(metric, D)),
    ctrl: manager.buffer(32), stats: buf(K * C * NSTATS), draws: buf(K * C * D),
  };
  // The three parts of a block's results, side by side (stats, draws, gradient); one sequence of
  // copies per block length.
  const resultBytes = (k: number) => [k * C * NSTATS * bytes, k * C * D * bytes, C * D * bytes] as const;
  // Host memory the block's results are copied into and read in place (no staging copy of its own).
  const readback = resultBytes(K).reduce((a, b) => a + b, 0) <= MAX_READBACK_BYTES ? manager.readbackBuffer(resultBytes(K).reduce((a, b) => a + b, 0)) : null;
  const readbackSequences = new Map<number, Sequence>();
  const readBlock = (k: number) => {
    const [sb, db, gb] = resultBytes(k);
    if (!readback) return { stats: new Real(state.stats.read(sb)), draws: new Real(state.draws.read(db)), g: new Real(state.g.read(gb)) };
    let copies = readbackSequences.get(k);
    if (!copies) {
      copies = manager.sequence()
        .copy(state.stats, readback, { byteLength: sb })
        .copy(state.draws, readback, { byteLength: db, dstOffset: sb })
        .copy(state.g, readback, { byteLength: gb, dstOffset: sb + db });
      readbackSequences.set(k, copies);
    }
    copies.submitSync();
    const all = readback.read(sb + db + gb);
    return { stats: new Real(all, 0, sb / bytes), draws: new Real(all, sb, db / bytes), g: new Real(all, sb + db, gb / bytes) };
  };
  let engine: Engine;
  try {
    engine = shape === "device"
      ? await deviceEngine(manager, model, state, { chains: C, maxDepth: opts.maxDepth, dtype, controller: opts.controller, metric, dataPrecision, profile: opts.profile })
      : await fusedEngine(manager, model, state, { chains: C, maxDepth: opts.maxDepth, dtype, shape, workgroup: opts.workgroup ?? chooseWorkgroup(work), metric, dataPrecision,
          iterationsPerDispatch: opts.iterationsPerDispatch ?? (manager.device.type === "cpu" ? 1 : "block"), profile: opts.profile,
          searchOnDevice: (opts.stepSizeSearch ?? chooseStepSizeSearch(work, C, manager.device.type)) === "device",
        });
  } catch (e) {
    // A failed preparation (a kernel the driver refuses, data out of the 16-bit range) leaves no device behind.
    Object.values(state).forEach((b: VulkanBuffer) => b.destroy());
    readback?.destroy();
    releaseDevice(opts.device, manager);
    throw e;
  }
  const info = manager.device;
  // The sampling block runAsync started ahead, still on the device: nothing else may use the
  // device's buffers until it is done.
  let ahead: { t: number; k: number; done: Promise<void> } | null = null;
  const release = () => {
    engine.dispose();
    readbackSequences.forEach((q) => q.destroy());
    readback?.destroy();
    Object.values(state).forEach((b: VulkanBuffer) => b.destroy());
    releaseDevice(opts.device, manager);
  };
  return {
    device: `${info.name} (${info.type})`,
    deviceType: info.type,
    dtype,
    shape,
    source: engine.source,
    counters: engine.counters,
    ...(engine.profile ? { profile: engine.profile } : {}),
    blockIterations: K,
    ...(dataPrecision === "f16" ? { note: halfDataNote(engine.half) } : {}),
    ...(shape !== "device" && info.type === "cpu"
      ? { warning: `warning: on a CPU implementation of Vulkan shader loops stop after 65,535 iterations, so long trajectories in the fused ${shape}-per-chain kernel come back wrong; use --gpu-shape device (the default on this device)` }
      : {}),
    factory(ctx) {
      if (ahead) throw new Error("GPU sampler: an earlier run stopped with a block still on the device; prepare another sampler");
      const s = ctx.settings;
      if (s.metric !== metric) throw new Error(`GPU sampler prepared for a ${metric} metric, the run adapts a ${s.metric} one`);
      if (s.chains !== C || s.maxDepth !== opts.maxDepth) throw new Error("GPU sampler prepared for other chains/max depth");
      const total = s.warmup + s.draws;
      // Results of the current block of sampling iterations: [start, start + count).
      let start = -1, count = 0;
      let stats = new Real(0), draws = new Real(0);
      const metricValues = metricBufferWriter(metric, D, new Real(C * metricSize(metric, D)));
      const adaptation = ctx.stepSizeAdaptation;
      // A warmup block runs until the host's next own step (metric update, final step size); the
      // device adapts the step size within it.
      const warmupBlock = (t: number) => {
        const next = adaptation.hostSteps.find((h) => h >= t) ?? s.warmup - 1;
        return Math.min(K, next + 1 - t);
      };
      const stepState = new Real(stepLayout.length);
      // The block's iterations, the seed and whether the device adapts the step size.
      const writeControl = (t: number, k: number, adapt: boolean) => {
        const seedLo = s.seed % 2 ** 32 >>> 0, seedHi = Math.floor(s.seed / 2 ** 32) >>> 0;
        state.ctrl.write(new Uint32Array([seedLo, seedHi, t, s.firstChain, k, adapt ? 1 : 0]));
      };
      const upload = (t: number, k: number, stepSizes: Float64Array, batch: ChainBatch, adapt: boolean) => {
        state.q.write(Real.from(batch.q));
        state.g.write(Real.from(batch.grad));
        state.lp.write(Real.from(batch.lp));
        stepState.set(stepSizes);
        if (adapt) {
          for (let c = 0; c < C; c++) {
            const da = adaptation.state(c);
            stepState.set([da.mu, da.counter, da.sBar, da.xBar], stepLayout.state(c));
          }
          const { delta, gamma, kappa, t0 } = adaptation.settings;
          for (const [name, value] of [["delta", delta], ["gamma", gamma], ["kappa", kappa], ["t0", t0]] as const) stepState[stepLayout.setting(name)] = value;
        }
        stepState[stepLayout.setting("maxDeltaH")] = s.maxDeltaH;
        state.eps.write(stepState);
        state.minv.write(metricValues(ctx.metrics));
        writeControl(t, k, adapt);
      };
      // A block starts at iteration t when t is past the block whose results are held: upload the
      // chains' state, run k transitions on the device (the only part that waits for it), read
      // the block's stats and draws back.
      // A limit the run sets (a trial's short first blocks) shortens a block, never to nothing.
      const limited = (k: number) => (ctx.blockLimit ? Math.min(k, Math.max(1, Math.floor(ctx.blockLimit()))) : k);
      const blockFor = (t: number): number | null => {
        if (t >= start && t < start + count) return null;
        return limited(t < s.warmup ? warmupBlock(t) : Math.min(K, total - t));
      };
      const beginBlock = (t: number, k: number, stepSizes: Float64Array, batch: ChainBatch) => upload(t, k, stepSizes, batch, t < s.warmup && k > 1);
      const endBlock = (t: number, k: number, batch: ChainBatch) => {
        const results = readBlock(k);
        stats = results.stats;
        engine.blockDone?.(stats, k);
        draws = results.draws;
        start = t;
        count = k;
        // The block's last draws are the chains' state; their gradient comes back with them.
        batch.grad.set(results.g);
      };
      // Iteration t's results, from the block held.
      const report = (t: number, batch: ChainBatch, out: RunnerStats[]) => {
        const slot = t - start;
        const { lp, evaluations } = batch;
        for (let c = 0, o = slot * C * NSTATS; c < C; c++, o += NSTATS) {
          const st = out[c]!;
          st.acceptStat = stats[o + STAT.acceptStat]!;
          st.treeDepth = stats[o + STAT.treeDepth]!;
          st.nLeapfrog = stats[o + STAT.nLeapfrog]!;
          st.divergent = stats[o + STAT.divergent]! !== 0;
          st.energy = stats[o + STAT.energy]!;
          lp[c] = stats[o + STAT.lp]!;
          evaluations[c] = evaluations[c]! + st.nLeapfrog;
        }
        // The iteration's draws of all chains are one contiguous run, in the batch's layout.
        batch.q.set(draws.subarray(slot * C * D, (slot + 1) * C * D));
      };
      return {
        run(t, stepSizes, batch, out) {
          const k = blockFor(t);
          if (k !== null) {
            if (ahead) throw new Error("GPU sampler: a run stepped asynchronously cannot go on synchronously");
            beginBlock(t, k, stepSizes, batch);
            engine.run(k);
            endBlock(t, k, batch);
          }
          report(t, batch, out);
        },
        async runAsync(t, stepSizes, batch, out) {
          const k = blockFor(t);
          if (k !== null) {
            if (ahead && ahead.t === t && ahead.k === k) await ahead.done;
            else {
              if (ahead) throw new Error(`GPU sampler: block ${ahead.t}–${ahead.t + ahead.k - 1} was started ahead, the run asked for ${t}`);
              beginBlock(t, k, stepSizes, batch);
              await engine.runAsync(k);
            }
            ahead = null;
            endBlock(t, k, batch);
            // Sampling blocks run back to back: the device already holds every chain's point, lp,
            // gradient, step size and metric as the next upload would write them (the kernels store
            // the last transition's state, and nothing adapts after warmup), so the next block starts
            // now, with only its iterations written, and runs while the host records this one.
            const next = t + k;
            if (t >= s.warmup && next < total) {
              const kNext = limited(Math.min(K, total - next));
              writeControl(next, kNext, false);
              const done = engine.runAsync(kNext);
              // Awaited by the block's first iteration or by dispose; a run stopped before then must
              // not leave an unhandled rejection behind.
              done.catch(() => {});
              ahead = { t: next, k: kNext, done };
              engine.counters.blocksAhead++;
            }
          }
          report(t, batch, out);
        },
      };
    },
    // The host's density with its batched log density and gradient moved to the device when the
    // device shape has kernels for it; otherwise the host density itself.
    hostDensity(host) {
      const onDevice = engine.logpGrad;
      if (!onDevice) return host;
      // Calls for the whole batch go to the device; anything else (single chains) stays on the host.
      const logpGrad = (q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array) => {
        if (lp.length !== C || q.length !== C * D) return host.logpGrad(q, lp, grad, active);
        // Only warmup's step-size searches call it, and no block runs ahead during warmup.
        if (ahead) throw new Error("GPU sampler: the batched gradient was asked for while a sampling block runs");
        onDevice(q, lp, grad);
      };
      return Object.create(host, { logpGrad: { value: logpGrad } }) as typeof host;
    },
    dispose() {
      // A run stopped with a block ahead (an error, an interrupt) releases the device once the
      // block is done: its buffers and command sequences are in use until then.
      if (ahead) void ahead.done.catch(() => {}).then(release);
      else release();
    },
  };
}

// Whether the workgroup shape renders the model's gradient as a row pass, asked only where the
// answer can change the shape (rowPassDecides): building the gradient graph costs time.
function rowPassAt(model: GpuModel, work: number, chains: number, dtype: "f32" | "f64", deviceType: string): boolean {
  if (!rowPassDecides(work, chains, deviceType)) return false;
  const graph = gradientGraph({ logDensity: model.logDensity, q: model.q }, { dtype });
  return rendersRowPass(graph.lp, graph.grad);
}

/**
 * The GPU sampler's transition runner: the sampler asks for one iteration at a time, the device
 * runs blocks of them. A block starts at iteration t when t is past the block whose results are
 * held: upload the chains' state, run k transitions on the device (the only part that waits for
 * it), read the block's stats and draws back; each iteration then reports from the block held.
 */
import type { BatchedDensity } from "@ppl/ppl";
import type { ChainBatch, RunnerStats, TransitionRunner, TransitionRunnerContext } from "@ppl/ppl/runner";
import type { BlockLayout, BlockReadback } from "./block-readback.ts";
import { realArray } from "./block-readback.ts";
import type { Engine, StateBuffers } from "./engine.ts";
import { metricBufferWriter, metricSize } from "./metric-buffer.ts";
import type { MetricForm } from "./metric-source.ts";
import { STAT, stepSizeLayout, TRANSITION_STATS } from "./nuts-layout.ts";

/** A sampling block started ahead of the run's request for it. */
export interface BlockAhead {
  readonly t: number;
  readonly k: number;
  readonly done: Promise<void>;
}

/** A prepared device: its engine, buffers and readback, and the block it may be running ahead. */
export interface PreparedDevice {
  readonly engine: Engine;
  readonly state: StateBuffers;
  readonly readback: BlockReadback;
  readonly layout: BlockLayout & { readonly metric: MetricForm; readonly maxDepth: number };
  /**
   * The sampling block runAsync started ahead, still on the device: nothing else may use the
   * device's buffers until it is done.
   */
  ahead: BlockAhead | null;
}

/** The results of the block held: iterations [start, start + count). */
interface HeldBlock {
  start: number;
  count: number;
  stats: ArrayLike<number>;
  draws: Float32Array | Float64Array;
}

/** The runner of one run on a prepared device (PreparedRunner.factory). */
export function gpuTransitionRunner(ctx: TransitionRunnerContext, dev: PreparedDevice): TransitionRunner {
  if (dev.ahead) throw new Error("GPU sampler: an earlier run stopped with a block still on the device; prepare another sampler");
  // The chains, depth and metric are the layout's: the run took them from this runner's plan.
  const s = ctx.settings;
  const K = dev.layout.blockIterations;
  const total = s.warmup + s.draws;
  const held: HeldBlock = { start: -1, count: 0, stats: new Float64Array(0), draws: new Float64Array(0) };
  const upload = blockUpload(ctx, dev);
  const blockFor = blockPlanner(ctx, K);
  const beginBlock = (t: number, k: number, stepSizes: Float64Array, batch: ChainBatch) => upload.block(t, k, stepSizes, batch, t < s.warmup && k > 1);
  const endBlock = (t: number, k: number, batch: ChainBatch) => {
    const results = dev.readback.read(k);
    held.stats = results.stats;
    dev.engine.blockDone?.(held.stats, k);
    held.draws = results.draws;
    held.start = t;
    held.count = k;
    // The block's last draws are the chains' state; their gradient comes back with them.
    batch.grad.set(results.g);
  };
  // The last iteration reported: a checkpoint is whole after a block's last one (atBlockEnd).
  let reported = -1;
  return {
    run(t, stepSizes, batch, out) {
      const k = blockFor(t, held);
      if (k !== null) {
        if (dev.ahead) throw new Error("GPU sampler: a run stepped asynchronously cannot go on synchronously");
        beginBlock(t, k, stepSizes, batch);
        dev.engine.run(k);
        endBlock(t, k, batch);
      }
      reportIteration(t, held, dev.layout, batch, out);
      reported = t;
    },
    async runAsync(t, stepSizes, batch, out) {
      const k = blockFor(t, held);
      if (k !== null) {
        const ahead = dev.ahead;
        if (ahead && ahead.t === t && ahead.k === k) await ahead.done;
        else {
          if (ahead) throw new Error(`GPU sampler: block ${ahead.t}–${ahead.t + ahead.k - 1} was started ahead, the run asked for ${t}`);
          beginBlock(t, k, stepSizes, batch);
          await dev.engine.runAsync(k);
        }
        dev.ahead = null;
        endBlock(t, k, batch);
        if (t >= s.warmup && t + k < total) startAhead(dev, t + k, blockFor.limited(Math.min(K, total - t - k)), upload.control);
      }
      reportIteration(t, held, dev.layout, batch, out);
      reported = t;
    },
    // Within a block the batch's gradient is the block's last one (endBlock), and in warmup the
    // device adapted the step size itself; at the block's end both are what the next block uploads.
    atBlockEnd: () => reported === held.start + held.count - 1,
  };
}

/**
 * Sampling blocks run back to back: the device already holds every chain's point, lp, gradient,
 * step size and metric as the next upload would write them (the kernels store the last
 * transition's state, and nothing adapts after warmup), so the next block starts now, with only
 * its iterations written, and runs while the host records this one.
 */
function startAhead(dev: PreparedDevice, t: number, k: number, writeControl: (t: number, k: number, adapt: boolean) => void): void {
  writeControl(t, k, false);
  const done = dev.engine.runAsync(k);
  // Awaited by the block's first iteration or by dispose; a run stopped before then must not
  // leave an unhandled rejection behind.
  done.catch(() => {});
  dev.ahead = { t, k, done };
  dev.engine.counters.blocksAhead++;
}

/** The length of the block that starts at t, or null where t is inside the block held. */
interface BlockPlanner {
  (t: number, held: HeldBlock): number | null;
  /** A block length as the run's limit shortens it. */
  limited(k: number): number;
}

function blockPlanner(ctx: TransitionRunnerContext, K: number): BlockPlanner {
  const s = ctx.settings;
  const adaptation = ctx.stepSizeAdaptation;
  const total = s.warmup + s.draws;
  // A warmup block runs until the host's next own step (metric update, final step size); the
  // device adapts the step size within it.
  const warmupBlock = (t: number) => {
    const next = adaptation.hostSteps.find((h) => h >= t) ?? s.warmup - 1;
    return Math.min(K, next + 1 - t);
  };
  // A limit the run sets (a trial's short first blocks) shortens a block, never to nothing.
  const limited = (k: number) => (ctx.blockLimit ? Math.min(k, Math.max(1, Math.floor(ctx.blockLimit()))) : k);
  const plan = (t: number, held: HeldBlock): number | null => {
    if (t >= held.start && t < held.start + held.count) return null;
    return limited(t < s.warmup ? warmupBlock(t) : Math.min(K, total - t));
  };
  return Object.assign(plan, { limited });
}

/** Writes a block's inputs: the chains' state, step sizes (and the adaptation's state), metrics and control words. */
function blockUpload(ctx: TransitionRunnerContext, dev: PreparedDevice) {
  const s = ctx.settings;
  const { state, layout } = dev;
  const { chains: C, dim: D, metric } = layout;
  const Real = realArray(layout.dtype);
  const stepLayout = stepSizeLayout(C);
  const metricValues = metricBufferWriter(metric, D, new Real(C * metricSize(metric, D)));
  const adaptation = ctx.stepSizeAdaptation;
  const stepState = new Real(stepLayout.length);
  // The block's iterations, the seed and whether the device adapts the step size.
  const control = (t: number, k: number, adapt: boolean) => {
    const seedLo = s.seed % 2 ** 32 >>> 0, seedHi = Math.floor(s.seed / 2 ** 32) >>> 0;
    state.ctrl.write(new Uint32Array([seedLo, seedHi, t, s.firstChain, k, adapt ? 1 : 0]));
  };
  const block = (t: number, k: number, stepSizes: Float64Array, batch: ChainBatch, adapt: boolean) => {
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
    control(t, k, adapt);
  };
  return { block, control };
}

/** Iteration t's results, from the block held, into the batch and the chains' stats. */
function reportIteration(t: number, held: HeldBlock, layout: BlockLayout, batch: ChainBatch, out: RunnerStats[]): void {
  const { chains: C, dim: D } = layout;
  const NSTATS = TRANSITION_STATS.length;
  const { stats } = held;
  const slot = t - held.start;
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
  batch.q.set(held.draws.subarray(slot * C * D, (slot + 1) * C * D));
}

/**
 * The host's density with its batched log density and gradient moved to the device when the
 * device shape has kernels for it; otherwise the host density itself.
 */
export function deviceHostDensity<T extends BatchedDensity>(host: T, dev: PreparedDevice): T {
  const onDevice = dev.engine.logpGrad;
  if (!onDevice) return host;
  const { chains: C, dim: D } = dev.layout;
  // Calls for the whole batch go to the device; anything else (single chains) stays on the host.
  const logpGrad = (q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array) => {
    if (lp.length !== C || q.length !== C * D) return host.logpGrad(q, lp, grad, active);
    // Only warmup's step-size searches call it, and no block runs ahead during warmup.
    if (dev.ahead) throw new Error("GPU sampler: the batched gradient was asked for while a sampling block runs");
    onDevice(q, lp, grad);
  };
  return Object.create(host, { logpGrad: { value: logpGrad } }) as T;
}

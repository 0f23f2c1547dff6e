/**
 * Measured-cost fallback from a transition runner (a GPU) to the CPU sampler. Thresholds on a
 * model's size guess where a density runs fastest; this measures it. The runner takes the first
 * iterations (up to the end of warmup's first window, where the host acts anyway); then the CPU
 * density's gradient is timed at the chains' current points, and when the CPU sampler would run
 * a gradient of every chain clearly faster than the runner did, the chains move to it with where
 * they stand (SamplingRun.handOver) and the run goes on there. A long time series' recurrence
 * (one thread's serial loop on the GPU) is the usual case.
 *
 * The choice reads the clock, so two runs of one seed can differ when the costs are close; the
 * margin keeps that to models where neither backend is clearly faster, and a run that must draw
 * the same bits every time pins its backend.
 */
import type { BatchedDensity } from "./density.ts";
import type { ChainState, RunState } from "./run.ts";

/** What a run may fall back to, and when it decides. */
export interface RunnerFallback {
  /** The CPU density the rest of the run would use (the one its draws are then computed with). */
  readonly density: BatchedDensity;
  /** Threads the CPU sampler would spread the chains over (sampleAsync; sample() uses one). */
  readonly threads: number;
  /** Decide after this many iterations (default: warmup's first window, 75 of Stan's windows, or all of a shorter warmup). */
  readonly after?: number;
  /** The CPU must be this many times faster to be taken (default 1.5): moving costs a little, and the runner's first blocks are its slowest. */
  readonly margin?: number;
  /** Seconds of CPU gradients to time, at least one gradient (default 0.01). */
  readonly probeSeconds?: number;
  /** Called once the decision is made, moved or not. */
  readonly onDecision?: (decision: FallbackDecision) => void;
}

/** What was measured, and whether the run moved. */
export interface FallbackDecision {
  /** Iterations the runner ran before the decision. */
  readonly iteration: number;
  /** The runner's seconds per gradient of one chain: its transitions' time over the gradients they took, all chains together. */
  readonly runnerSecondsPerGradient: number;
  /** The CPU's seconds per gradient of one chain, spread over its threads (one gradient's time / min(threads, chains)). */
  readonly cpuSecondsPerGradient: number;
  /** CPU threads the estimate assumes. */
  readonly threads: number;
  /** Whether the chains moved to the CPU. */
  readonly switched: boolean;
}

/** The iteration after which the fallback decides: warmup's first window (Stan's 75 iterations), else the first tenth of a run without warmup. */
export function fallbackIteration(fallback: RunnerFallback, warmup: number, draws: number): number {
  if (fallback.after !== undefined) return fallback.after;
  if (warmup >= 150) return 75;
  if (warmup > 0) return warmup;
  return Math.max(1, Math.ceil(draws / 10));
}

/** Whether the CPU sampler is clearly faster, from the two measured costs a gradient. */
export function cpuIsFaster(runnerSecondsPerGradient: number, cpuSecondsPerGradient: number, margin = 1.5): boolean {
  if (!(runnerSecondsPerGradient > 0) || !Number.isFinite(cpuSecondsPerGradient)) return false;
  return cpuSecondsPerGradient * margin < runnerSecondsPerGradient;
}

/** Seconds of one chain's gradient on `density` at point q: the mean over about `seconds` of calls (at least one). */
export function timeGradient(density: BatchedDensity, q: Float64Array, seconds: number): number {
  const lp = new Float64Array(1);
  const grad = new Float64Array(q.length);
  let calls = 0;
  const t0 = performance.now();
  let elapsed = 0;
  do {
    density.logpGrad(q, lp, grad);
    calls++;
    elapsed = (performance.now() - t0) / 1000;
  } while (elapsed < seconds && calls < 1_000_000);
  return elapsed / calls;
}

/**
 * The decision for a run of `chains` chains whose runner took `runnerSeconds` for `gradients`
 * gradients (all chains together) before iteration `iteration`; the CPU is timed at point q.
 */
export function decideFallback(
  fallback: RunnerFallback,
  q: Float64Array,
  chains: number,
  measured: { readonly iteration: number; readonly runnerSeconds: number; readonly gradients: number },
): FallbackDecision {
  const threads = Math.max(1, Math.min(fallback.threads, chains));
  const runnerSecondsPerGradient = measured.gradients > 0 ? measured.runnerSeconds / measured.gradients : Infinity;
  const one = timeGradient(fallback.density, q, fallback.probeSeconds ?? 0.01);
  const cpuSecondsPerGradient = one / threads;
  return {
    iteration: measured.iteration,
    runnerSecondsPerGradient,
    cpuSecondsPerGradient,
    threads,
    switched: measured.gradients > 0 && cpuIsFaster(runnerSecondsPerGradient, cpuSecondsPerGradient, fallback.margin),
  };
}

/**
 * The state with every chain's log density and gradient evaluated again on `density`: a runner's
 * were computed in its own float type, and between its blocks its gradient may be a block old.
 * The CPU sampler's next transition starts from these.
 */
export function reevaluated(state: RunState, density: BatchedDensity): RunState {
  const chains: ChainState[] = state.chains.map((ch) => {
    const lp = new Float64Array(1);
    const grad = new Float64Array(ch.q.length);
    density.logpGrad(ch.q, lp, grad);
    return { ...ch, lp: lp[0]!, grad, evaluations: ch.evaluations + 1 };
  });
  return { ...state, chains };
}

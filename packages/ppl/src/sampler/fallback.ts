/**
 * Measured-cost fallback from a transition runner (a GPU) to the CPU sampler. Thresholds on a
 * model's size guess where a density runs fastest; this measures it. The runner takes the first
 * iterations (to the end of warmup's second block, where the host acts anyway), timed over that
 * block (fallbackIteration); then the CPU
 * density's gradient is timed at the chains' current points, and when the CPU sampler would run
 * a gradient of every chain clearly faster than the runner did, the chains move to it with where
 * they stand (SamplingRun.handOver) and the run goes on there (drivers/runner-fallback.ts). A long time series' recurrence
 * (one thread's serial loop on the GPU) is the usual case.
 *
 * The choice reads the clock, so two runs of one seed can differ when the costs are close; the
 * margin keeps that to models where neither backend is clearly faster, and a run that must draw
 * the same bits every time pins its backend.
 */
import type { RunnerFallback } from "./options.ts";
import { secondHalf } from "./pace.ts";
import type { FallbackDecision } from "./result.ts";

/**
 * How many times faster the CPU must take a gradient, spread over its threads, for a run to use
 * it rather than a runner. One thread's pace over the threads is what the estimate assumes, and on
 * the H200's host that erred both ways near the line: earnings moved to the CPU at a measured
 * 1.55× and ran 1.2× slower there (5.3 s against 4.3), while gp_pois_regr kept on the GPU at 1.7×
 * (the margin at 2) ran 2× slower than on the CPU (36 s against 18).
 */
export const DEFAULT_MARGIN = 1.5;

/**
 * Where the fallback measures the runner and decides: over iterations [from, at), deciding after
 * `at`. Both are ends of the runner's warmup blocks, which end where the host acts (a metric
 * update; `hostSteps`, as TransitionRunnerContext has them): a runner computes a whole block in
 * the call for its first iteration, so only whole blocks can be timed. With Stan's windows that is
 * the first slow window's successor, 100–149: the init buffer's block is the runner's slowest a
 * gradient (its first dispatches, and chains whose trees differ most in depth, which a fused
 * kernel waits for), and the CPU's trial runs from iteration 150, in the same regime. A warmup
 * with one block is measured whole; a run without warmup, over its first tenth.
 */
export function fallbackIteration(fallback: RunnerFallback, warmup: number, draws: number, hostSteps: readonly number[]): { readonly from: number; readonly at: number } {
  if (fallback.after !== undefined) return { from: Math.min(fallback.measureFrom ?? 0, fallback.after - 1), at: fallback.after };
  const ends = [...new Set(hostSteps.map((h) => h + 1))].filter((e) => e > 0 && e <= warmup).sort((a, b) => a - b);
  if (ends.length >= 2) return { from: ends[0]!, at: ends[1]! };
  if (ends.length === 1) return { from: 0, at: ends[0]! };
  return { from: 0, at: Math.max(1, Math.ceil(draws / 10)) };
}

/** Whether the CPU sampler is clearly faster, from the two measured costs a gradient. */
export function cpuIsFaster(runnerSecondsPerGradient: number, cpuSecondsPerGradient: number, margin = DEFAULT_MARGIN): boolean {
  if (!(runnerSecondsPerGradient > 0) || !Number.isFinite(cpuSecondsPerGradient)) return false;
  return cpuSecondsPerGradient * margin < runnerSecondsPerGradient;
}

/**
 * The decision for a run of `chains` chains whose runner took `runnerSeconds` for `gradients`
 * gradients (all chains together) before iteration `iteration`. `timeCpu` runs the CPU sampler's
 * trial and returns its seconds per gradient on one thread; it is not called when the CPU's lower
 * bound already loses.
 */
export function decideFallback(
  fallback: RunnerFallback,
  chains: number,
  measured: { readonly iteration: number; readonly runnerSeconds: number; readonly gradients: number },
  timeCpu: (seconds: number) => number,
): FallbackDecision {
  const threads = Math.max(1, Math.min(fallback.threads, chains));
  const runnerSecondsPerGradient = measured.gradients > 0 ? measured.runnerSeconds / measured.gradients : Infinity;
  const bound = (fallback.cpuLowerBound ?? 0) / threads;
  if (bound > 0 && !cpuIsFaster(runnerSecondsPerGradient, bound, fallback.margin)) {
    return { iteration: measured.iteration, runnerSecondsPerGradient, cpuSecondsPerGradient: bound, threads, timed: false, switched: false };
  }
  const cpuSecondsPerGradient = timeCpu(fallback.probeSeconds ?? 0.1) / threads;
  return {
    iteration: measured.iteration,
    runnerSecondsPerGradient,
    cpuSecondsPerGradient,
    threads,
    timed: true,
    switched: measured.gradients > 0 && cpuIsFaster(runnerSecondsPerGradient, cpuSecondsPerGradient, fallback.margin),
  };
}

/**
 * Seconds a gradient of a trial that calls `step` (one iteration of every chain; it returns the
 * gradients that iteration took, or null when the run is over) for about `seconds`, at least two
 * iterations: the iterations of the second half of that time over their gradients. The first
 * iterations run before the JavaScript engine has optimised the CPU code (the HMM's first 200
 * gradients ran 4× slower than later ones), and a long run runs optimised.
 */
export function trialSecondsPerGradient(step: () => number | null, seconds: number, clock: () => number = () => performance.now()): number {
  const times: number[] = [];
  const gradients: number[] = [];
  const start = clock();
  let now = start;
  for (;;) {
    const t0 = now;
    const g = step();
    if (g === null) break;
    now = clock();
    times.push((now - t0) / 1000);
    gradients.push(g);
    if (times.length >= 2 && (now - start) / 1000 >= seconds) break;
  }
  return secondHalfSecondsPerGradient(times, gradients);
}

/**
 * Seconds a gradient of the iterations that took `times` seconds and `gradients` gradients each,
 * over those that start in the second half of their total time (at least the last one): the first
 * run before the JavaScript engine has optimised the CPU code.
 */
export function secondHalfSecondsPerGradient(times: readonly number[], gradients: readonly number[]): number {
  const { seconds, gradients: g } = secondHalf(times, gradients);
  return g > 0 ? seconds / g : Infinity;
}

/** Elements a CPU core reads a nanosecond at best (well above what the CPU backend reaches), for cpuGradientLowerBound. */
const ELEMENTS_PER_NANOSECOND = 8;

/** Elements of a model's data, all bindings together (what cpuGradientLowerBound counts). */
export function dataElementCount(bindings: Readonly<Record<string, { readonly shape: readonly number[] }>>): number {
  return Object.values(bindings).reduce((n, v) => n + v.shape.reduce((a, b) => a * b, 1), 0);
}

/** A lower bound on one chain's gradient on one CPU core: its `dataElements` read once, at ELEMENTS_PER_NANOSECOND. */
export function cpuGradientLowerBound(dataElements: number): number {
  return (dataElements / ELEMENTS_PER_NANOSECOND) * 1e-9;
}

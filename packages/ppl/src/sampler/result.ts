/**
 * What a run gives back: each iteration's draw as it is made, and the whole run's draws,
 * statistics and adaptation at its end, with what its placement measured (a runner's fallback to
 * the CPU, a pending runner's trial).
 */
import type { MetricKind } from "./metric.ts";
import type { ResolvedSampleSettings } from "./settings.ts";
import type { Reinitialisation } from "./warmup/stuck-watch.ts";

/** One iteration of one chain, handed to `onDraw` (warmup and sampling alike); the record is refilled for the chain's next draw, so copy what is kept. */
export interface DrawInfo {
  /** Row of the chain in this run (0-based). */
  readonly chain: number;
  /** Chain id in the random streams (firstChain + chain). */
  readonly chainId: number;
  /** Global 0-based iteration: warmup iterations first. */
  readonly iteration: number;
  readonly warmup: boolean;
  /** Unconstrained position; a view valid only during the callback. */
  readonly position: Float64Array;
  readonly lp: number;
  readonly acceptStat: number;
  readonly stepSize: number;
  readonly treeDepth: number;
  readonly nLeapfrog: number;
  readonly divergent: boolean;
  readonly energy: number;
}

/** Per-draw sampler statistics of one chain (Stan's `__` columns), length = draws done. */
export interface ChainStats {
  readonly lp: Float64Array;
  readonly acceptStat: Float64Array;
  readonly stepSize: Float64Array;
  readonly treeDepth: Float64Array;
  readonly nLeapfrog: Float64Array;
  /** 1 for divergent, 0 otherwise. */
  readonly divergent: Float64Array;
  readonly energy: Float64Array;
}

/** Adaptation results of one chain. */
export interface ChainAdaptationResult {
  readonly stepSize: number;
  readonly metric: MetricKind;
  /** Inverse metric: diagonal (dim) or dense (dim×dim, row-major). */
  readonly invMetric: Float64Array;
}

/** Everything a run produced; arrays cover only what was drawn when aborted. */
export interface SampleResult {
  readonly dim: number;
  readonly settings: ResolvedSampleSettings;
  /** Per chain: draws × dim unconstrained positions, row per draw. */
  readonly draws: Float64Array[];
  readonly stats: ChainStats[];
  readonly adaptation: ChainAdaptationResult[];
  readonly warmupDone: number;
  readonly drawsDone: number;
  readonly aborted: boolean;
  /** Gradient evaluations per chain (init, step-size searches and transitions). */
  readonly gradientEvaluations: number[];
  /** Stuck chains re-initialised during warmup (warmup/stuck-chains.ts), in the order they were (chain = row of the run). */
  readonly reinitialisations: readonly Reinitialisation[];
  /** With threads: the wall time of the run, split between warmup and sampling as the chains' own times are. */
  readonly timing: { readonly warmupSeconds: number; readonly samplingSeconds: number };
  /** Where the chains ran, for runs with more than one thread: the thread of each chain (0 = the calling thread, −1 = not started). */
  readonly threads?: { readonly used: number; readonly chainThread: readonly number[] };
  /** With options.fallback: what was measured, and whether the chains moved to the CPU. */
  readonly fallback?: FallbackDecision;
  /** With options.pendingRunner: what was measured, and whether the chains moved to the runner. */
  readonly pendingRunner?: PendingRunnerDecision;
}

/** What was measured, and whether the run moved. */
export interface FallbackDecision {
  /** Iterations the runner ran before the decision. */
  readonly iteration: number;
  /** The runner's seconds per gradient of one chain over the measured iterations: its transitions' time over the gradients they took, all chains together. */
  readonly runnerSecondsPerGradient: number;
  /** The CPU sampler's seconds per gradient of one chain, spread over its threads (its trial iterations' time over their gradients, / min(threads, chains)). */
  readonly cpuSecondsPerGradient: number;
  /** CPU threads the estimate assumes. */
  readonly threads: number;
  /** Whether the CPU was timed (false: its lower bound already lost, and cpuSecondsPerGradient is that bound over the threads). */
  readonly timed: boolean;
  /** Whether the chains moved to the CPU. */
  readonly switched: boolean;
}

/** What a run with a pending runner measured, and where it went. */
export interface PendingRunnerDecision {
  /**
   * "measured": both were timed; "failed": the runner's preparation failed; "ended": the run ended
   * before the runner was ready; "short": the run was too short to start preparing it.
   */
  readonly reason: "measured" | "failed" | "ended" | "short";
  /** Iterations done on the CPU before the decision. */
  readonly iteration: number;
  /** The runner's trial: seconds per gradient of one chain (its time over the gradients of all chains); NaN when not tried. */
  readonly runnerSecondsPerGradient: number;
  /** The CPU's seconds per gradient of one chain, spread over its threads; NaN when not timed. */
  readonly cpuSecondsPerGradient: number;
  /** CPU threads the estimate assumes. */
  readonly threads: number;
  /** Whether the chains moved to the runner. */
  readonly moved: boolean;
  /** With reason "failed": the preparation's error. */
  readonly error?: string;
  /** With reason "measured": seconds the runner's trials took (part of the result's timing). */
  readonly trialSeconds?: number;
  /** Seconds from the run's start to the decision (with "measured": to the decision's trial's end). */
  readonly seconds: number;
}

/**
 * The options of a run, by concern: what decides its draws (settings.ts: run lengths, where chains
 * start, the transition, the adaptation), what it reports as it goes (output), and where its
 * chains run (placement: threads, a transition runner, a fallback from it, a runner still being
 * prepared). SampleOptions is all of them in one object.
 */
import type { Checkpoint, CheckpointOptions } from "./checkpoint.ts";
import type { BatchedDensity } from "./density.ts";
import type { ChainAdaptationResult, DrawInfo, FallbackDecision, PendingRunnerDecision } from "./result.ts";
import type { SettingsOptions } from "./settings.ts";
import type { PlannedRunner } from "./transition-runner.ts";
import type { Reinitialisation } from "./warmup/stuck-watch.ts";

/** What a run reports as it goes, and how it is stopped. */
export interface OutputOptions {
  /** Called for every chain after every iteration, e.g. to stream CSV. */
  onDraw?: (draw: DrawInfo) => void;
  /**
   * false: every draw goes to onDraw only, and the result's draws and statistics are empty, so that
   * the memory used does not grow with the run (a caller that writes the draws out keeps them there).
   */
  keepDraws?: boolean;
  /** Called for every chain once its warmup is over, before its first sampling draw (chain = row in this run). */
  onAdapted?: (chain: number, adaptation: ChainAdaptationResult) => void;
  /** Called when a stuck chain is re-initialised at a warmup window's end (chain = row in this run), before its next draw. */
  onReinitialised?: (r: Reinitialisation) => void;
  /** Stops cleanly between iterations, keeping what was drawn. */
  signal?: AbortSignal;
  /**
   * Saves checkpoints as the run goes (checkpoint.ts): every so many iterations or seconds and at
   * the end of warmup. The run then samples in the calling thread, on the CPU.
   */
  checkpoint?: CheckpointOptions;
  /**
   * Continues the run that saved this checkpoint (the same settings and density; refused
   * otherwise): its draws from the checkpoint's iteration on are the bits that run would have
   * drawn. Needs keepDraws: false (the draws before it are the caller's).
   */
  resume?: Checkpoint;
}

/** Where the chains run: threads, or a transition runner (a GPU) with its fallback, or one still being prepared. */
export interface PlacementOptions {
  /**
   * Threads to spread the chains over (1, the default: every chain in the calling thread). With
   * more, {@link sampleAsync} samples every chain in the calling thread at once and, when its pace
   * projects more than half a second of work, hands groups of chains (with where they stand) to
   * worker threads that rebuild the density from its shared form (a density from modelDensity; the
   * data stay in shared memory). Every chain's draws are the same bits whichever thread runs it, and
   * a stop ends every chain after the same iteration.
   */
  threads?: number;
  /**
   * Runs the transitions somewhere else (a GPU): a runner prepared for its plan (a PreparedRunner),
   * whose factory, given the run's settings and metrics, returns a runner that advances every chain
   * one iteration. The run's chains, tree depth and metric are the plan's (planOwnedOptions).
   * Initialization, step-size searches and adaptation stay here and use `density`.
   */
  transitionRunner?: PlannedRunner;
  /**
   * With a transition runner: after its first iterations, time trial iterations of the CPU sampler
   * on `fallback.density`, and move the chains to it when it takes a gradient clearly faster (see
   * fallback.ts). The result's `fallback` says what was measured.
   */
  fallback?: RunnerFallback;
  /**
   * sampleAsync only, without a transitionRunner: a runner still being prepared. The run starts on
   * this density (the CPU) and moves to the runner once it is ready and measures faster (see
   * pending-runner.ts); the result's `pendingRunner` says what was measured.
   */
  pendingRunner?: PendingRunner;
  /**
   * With a transitionRunner that computes blocks of iterations: the most iterations it may compute
   * in one call, asked before each block (a trial's short first blocks, see pending-runner.ts).
   */
  runnerBlockLimit?: () => number;
}

/** Options of {@link sample}; every field has Stan's default where Stan has one. */
export interface SampleOptions extends SettingsOptions, OutputOptions, PlacementOptions {}

/** What a run may fall back to, and when it decides. */
export interface RunnerFallback {
  /** The CPU density the rest of the run would use (the one its draws are then computed with). */
  readonly density: BatchedDensity;
  /** Threads the CPU sampler would spread the chains over (sampleAsync; sample() uses one). */
  readonly threads: number;
  /** Decide after this many iterations (default: see fallbackIteration). */
  readonly after?: number;
  /** With `after`: time the runner from this iteration on (default 0). */
  readonly measureFrom?: number;
  /** The CPU must be this many times faster to be taken (default DEFAULT_MARGIN). */
  readonly margin?: number;
  /** Seconds of trial CPU iterations to time, at least two iterations (default 0.1). */
  readonly probeSeconds?: number;
  /**
   * Seconds below which one chain's gradient on the CPU cannot go (its data read once at the
   * fastest a core reads them; see cpuGradientLowerBound). When even that is not clearly faster
   * than the runner, the CPU is not timed: a large-data density's one call can take longer than
   * the runner's whole first window.
   */
  readonly cpuLowerBound?: number;
  /** Called once the decision is made, moved or not. */
  readonly onDecision?: (decision: FallbackDecision) => void;
}

/** A transition runner that is ready to run, with the density its run uses. */
export interface ReadyRunner {
  readonly transitionRunner: PlannedRunner;
  /** The density of the run on the runner (a GPU's host density: initialization, step-size searches). */
  readonly density: BatchedDensity;
  /** Most iterations the runner computes in one call (its block; default 100): the trial runs whole blocks. */
  readonly blockIterations?: number;
}

/** A runner still being prepared; the run starts on the CPU (SampleOptions.pendingRunner). */
export interface PendingRunner {
  /**
   * Resolves once the runner is ready; a rejection leaves the run on the CPU (the decision says
   * why). A function starts the preparation only once the CPU's work left is projected past
   * `startAfterSeconds`: a run shorter than that could not gain from a runner, and its preparation
   * (a compiler, a driver) would take the CPU's time.
   */
  readonly ready: Promise<ReadyRunner> | (() => Promise<ReadyRunner>);
  /**
   * With a function `ready`: the CPU's projected seconds left (at its pace over the later half of
   * its time, pace.ts ProgressPace) beyond which it is called; nor is a ready runner tried with less
   * left (default 0.5: twice the trial's own budget).
   */
  readonly startAfterSeconds?: number;
  /** The CPU must take a gradient this many times faster, spread over its threads, to be kept (default DEFAULT_MARGIN). */
  readonly margin?: number;
  /** Seconds of the CPU's iterations to time before deciding (default 0.1; the second half counts). */
  readonly probeSeconds?: number;
  /** The runner's trial ends after a block that takes this long (default 0.02 s), or after its 64-iteration block. */
  readonly trialBlockSeconds?: number;
  /** Nor does the trial go on once it has taken this long (default 0.25 s). */
  readonly trialSeconds?: number;
  /** Keep the CPU no earlier than this iteration (default: after warmup's first metric update, 100 of Stan's 1000); a runner that wins earlier is taken then. */
  readonly earliest?: number;
  /** Called once, when the run decides or ends without deciding. */
  readonly onDecision?: (decision: PendingRunnerDecision) => void;
}

/**
 * What a sampling method is: pure functions over one chain's explicit state, as BlackJAX writes
 * its kernels. `init` makes a chain's state; a transition is `begin` (from the chain's current
 * point, with its random stream at `iteration`) and then `advance` after each gradient it asks
 * for, because the driver serves the gradients of all chains of a round in one batched density
 * call; `info` reads the transition's statistics. step.ts runs one whole transition against a
 * density, BlackJAX's `step(state, key) → (state, info)`. A method's warmup is its own
 * AdaptationMethod (`init/update/final`), or none.
 */
import type { Metric } from "../metric.ts";
import type { Trajectory } from "../trajectory.ts";
import type { ChainContext, ChainSlot, TransitionStats } from "../transition.ts";
import type { ChainAdaptationState } from "../warmup/adaptation.ts";
import type { DualAveragingState } from "../warmup/dual-averaging.ts";

/** The run's settings that a method and its adaptation read (a run's resolved settings have them all). */
export interface MethodSettings {
  readonly warmup: number;
  /** The initial step size. */
  readonly stepSize: number;
  /** Target accept statistic of the step size's adaptation. */
  readonly adaptDelta: number;
  readonly maxDepth: number;
  readonly maxDeltaH: number;
  readonly hmcSteps: number;
}

/**
 * Where a worker thread imports a method from: a JavaScript module's URL (the `import.meta.url`
 * of the file that defines it) and the name it exports the method under.
 */
export interface MethodSource {
  readonly module: string;
  readonly export: string;
}

/**
 * A transition kernel over one chain's state S. The chain context holds the chain's rows of the
 * batch (q, lp, grad: the current point, and where a gradient is asked for), its Philox key and
 * id, and its metric; the state holds everything else the method keeps between gradients.
 */
export interface SamplingMethod<S> {
  /** The name a run asks for it by (SampleOptions.method), also in worker threads. */
  readonly name: string;
  /**
   * Where worker threads import this method from (functions do not cross threads). Without it, a
   * method that is not a shipped one (builtin.ts, found by name) runs its chains in the calling
   * thread only.
   */
  readonly source?: MethodSource;
  /** Warmup's adaptation of the step size (and metric); null: warmup only runs the transitions. */
  readonly adaptation: AdaptationMethod<unknown> | null;
  /**
   * Warmup's adaptation over all chains of the run at once (ChEES: one step size and trajectory
   * length learnt from every chain's transition), in place of a per-chain `adaptation`. A run with
   * one runs its chains in one thread, in lockstep.
   */
  readonly runAdaptation?: RunAdaptationMethod<unknown, S>;
  /** The state of a chain's transitions, allocated once per chain. */
  init(chain: ChainContext, settings: MethodSettings): S;
  /** Starts the transition of `iteration` with step size `stepSize`; true when it needs the gradient at chain.q. */
  begin(state: S, iteration: number, stepSize: number): boolean;
  /** Takes the gradient just computed at chain.q (lp in the batch, chain.grad); true when it needs another. */
  advance(state: S): boolean;
  /** The statistics of the state's last transition. */
  info(state: S): TransitionStats;
  /**
   * For a method whose transition is a leapfrog trajectory of a length fixed before it starts
   * (static HMC, ChEES): the transition as start, trajectory, finish, so that a driver runs every
   * chain's whole trajectory in one call of the density (LeapfrogDensity.leapfrogs). begin/advance
   * must take the same steps (leapfrogMethod derives them from this).
   */
  readonly leapfrogs?: LeapfrogTransition<S>;
}

/** A transition that is a fixed-length leapfrog trajectory between a start and a finish. */
export interface LeapfrogTransition<S> {
  /** Starts the transition of `iteration` (momentum drawn, start kept); returns the chain's trajectory, its steps and step size set. */
  start(state: S, iteration: number, stepSize: number): Trajectory;
  /** The chain's trajectory (the one start returns). */
  trajectory(state: S): Trajectory;
  /** After the trajectory ran (the chain's row at its end, its momentum and steps taken in the trajectory): the Metropolis test. */
  finish(state: S): void;
  /**
   * start of every chain of the batch at once (states[c] is batch row c's, stepSizes[c] its step
   * size), trajectories[c] set to its trajectory: what start does chain by chain, the same bits,
   * with the work the chains share done once and their rows copied whole.
   */
  startAll?(states: readonly S[], iteration: number, stepSizes: Float64Array, trajectories: Trajectory[]): void;
  /** finish of every chain of the batch at once (states[c] is batch row c's): the same bits as finish chain by chain. */
  finishAll?(states: readonly S[]): void;
}

/**
 * Warmup's adaptation of a chain: `init`, then `update` after every warmup transition, and `final`
 * for the step size to sample with. When `update` replaced the metric the driver searches a step
 * size from the chain's point (Stan's heuristic) and hands it to `restart`.
 */
export interface AdaptationMethod<A> {
  /** A chain's adaptation state, over the chain's metric (adapted in place). */
  init(chain: ChainSlot, metric: Metric, settings: MethodSettings): A;
  /** Learns from a warmup transition's statistics and draw q; true when the metric was replaced. */
  update(state: A, info: TransitionStats, q: Float64Array): boolean;
  /** The step size for the next iteration, as the last update left it. */
  stepSize(state: A): number;
  /** After the step-size search that follows a metric update. */
  restart(state: A, stepSize: number): void;
  /**
   * Forgets what the chain learned, for a stuck chain re-initialised at a window's end
   * (warmup/stuck-chains.ts): the metric it started with, a fresh step-size history; the driver
   * then searches a step size from the new point and calls `restart`. Without it, a chain is not
   * re-initialised.
   */
  reinitialise?(state: A): void;
  /** The step size to sample with, at warmup's end. */
  final(state: A): number;
  /** The state as data, to continue elsewhere (another thread), and back. */
  save(state: A): ChainAdaptationState;
  /** Sets the state from what save() returned (a checkpoint, a thread's hand-over). */
  restore(state: A, saved: ChainAdaptationState): void;
  /** The step size's dual-averaging state, for a transition runner that carries warmup on by itself. */
  dualAveraging(state: A): DualAveragingState;
}

/**
 * Warmup's adaptation over every chain of a run, updated once per iteration with every chain's
 * method state (what its transition saw). It writes the step size of every chain (the same for
 * all, or not) and may adapt the chains' metrics and method states in place.
 */
export interface RunAdaptationMethod<R, S> {
  /**
   * Every chain's metric is the same at every iteration (ChEES): the run then gives its chains one
   * Metric object (unless the caller gave per-chain inverse metrics), so that setting it is once
   * for all chains, and init receives that object once a chain.
   */
  readonly sharedMetric?: boolean;
  /** The run's adaptation state, over the chains' metrics (adapted in place). */
  init(metrics: readonly Metric[], settings: MethodSettings): R;
  /** Before the first warmup transition, with each chain's searched step size in stepSizes (rewritten). */
  start(state: R, chains: readonly S[], stepSizes: Float64Array): void;
  /** Learns from warmup iteration's transitions of every chain; writes the next step sizes. */
  update(state: R, chains: readonly S[], q: readonly Float64Array[], stepSizes: Float64Array): void;
  /** At warmup's end: writes the step sizes to sample with and fixes the chains' parameters. */
  final(state: R, chains: readonly S[], stepSizes: Float64Array): void;
}

/**
 * The seam where transitions run somewhere else (a GPU): a runner advances every chain of a batch
 * one iteration, while initialization, step-size searches and adaptation stay on the host.
 */
import type { ChainBatch } from "./batch.ts";
import type { Metric } from "./metric.ts";
import type { ResolvedSampleSettings } from "./settings.ts";
import type { DualAveragingSettings, DualAveragingState } from "./warmup/dual-averaging.ts";

/** Seconds spent in a transition runner's calls, and the gradients its transitions took (all chains). */
export interface RunnerCost {
  readonly seconds: number;
  readonly gradients: number;
}

/** Per-chain statistics a transition runner fills in. */
export interface RunnerStats {
  acceptStat: number;
  treeDepth: number;
  nLeapfrog: number;
  divergent: boolean;
  energy: number;
}

/**
 * Advances every chain of a batch by one transition of iteration t, from and back into the batch
 * rows. A runner that waits for a device may also offer `runAsync`, which waits without blocking
 * the thread: sampleAsync uses it, so that runners on several devices (splitRunner) work at once.
 */
export interface TransitionRunner {
  run(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): void;
  runAsync?(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): Promise<void>;
}

/** What a transition runner is built from. */
export interface TransitionRunnerContext {
  readonly settings: ResolvedSampleSettings;
  readonly dim: number;
  /** Each chain's metric; adaptation updates them in place between iterations. */
  readonly metrics: readonly Metric[];
  /**
   * Warmup's step-size adaptation, for a runner that carries it on by itself over several warmup
   * iterations: the dual-averaging settings, each chain's state as the host has it now, and the
   * warmup iterations after which the host must act itself (a metric update and step-size search,
   * or the switch to the final step size), where such a runner's warmup blocks must end. The host
   * still makes the same updates from the accept statistics the runner reports.
   */
  readonly stepSizeAdaptation: {
    readonly settings: DualAveragingSettings;
    state(chain: number): DualAveragingState;
    readonly hostSteps: readonly number[];
  };
  /** The most iterations a block may have, asked before each block (SampleOptions.runnerBlockLimit); none: the runner's own. */
  readonly blockLimit?: () => number;
}

/** Makes the transition runner of a run. */
export type TransitionRunnerFactory = (ctx: TransitionRunnerContext) => TransitionRunner;

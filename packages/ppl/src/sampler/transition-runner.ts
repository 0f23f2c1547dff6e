/**
 * The seam where transitions run somewhere else (a GPU): a runner advances every chain of a batch
 * one iteration, while initialization, step-size searches and adaptation stay on the host.
 */
import type { ChainBatch } from "./batch.ts";
import { SamplerOptionError } from "./errors.ts";
import type { Metric, MetricKind } from "./metric.ts";
import type { ResolvedSampleSettings, SettingsOptions } from "./settings.ts";
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
  /** Advances every chain by the transition of iteration t, from and into the batch's rows, filling each chain's stats. */
  run(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): void;
  /** As run, waiting for the device without blocking the thread. */
  runAsync?(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): Promise<void>;
  /**
   * Whether, after the last iteration reported, the batch (points, log densities, gradients) and
   * the host's step sizes, metrics and adaptation are the whole of the runner's state: a runner of
   * blocks is so at a block's end. A checkpoint is taken only then, so that a run resumed from it
   * draws what the run that wrote it drew; a runner without it takes no checkpoints.
   */
  atBlockEnd?(): boolean;
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
    /** Chain `chain`'s dual-averaging state as the host has it now. */
    state(chain: number): DualAveragingState;
    readonly hostSteps: readonly number[];
  };
  /** The most iterations a block may have, asked before each block (SampleOptions.runnerBlockLimit); none: the runner's own. */
  readonly blockLimit?: () => number;
}

/** Makes the transition runner of a run. */
export type TransitionRunnerFactory = (ctx: TransitionRunnerContext) => TransitionRunner;

/** The layout of a run that a transition runner is prepared for. */
export interface RunPlan {
  readonly chains: number;
  readonly maxDepth: number;
  readonly metric: MetricKind;
  /** Float type of the density the runner evaluates. */
  readonly dtype: "f32" | "f64";
  /** Device index, for runners that run on one (default: the runner's best device). */
  readonly device?: number;
  /** How the runner lays chains out (the GPU sampler: thread, workgroup or device); default: its own choice. */
  readonly shape?: string;
  /**
   * How large float data are stored on the runner's device: "exact" (default, in the dtype) or
   * "f16", rounded to 16-bit floats and computed in the dtype (the GPU sampler, on a device with
   * 16-bit storage); the CPU runs ignore it.
   */
  readonly dataPrecision?: "exact" | "f16";
  /**
   * Where the run's transitions run: "runner" (the default), the runner's own (the GPU's NUTS);
   * "host", the run's sampling method (SampleOptions.method: any layer method, ChEES, MEADS, static
   * HMC, a caller's own) runs on the host, and each round's gradients of all chains are one call of
   * the runner's batched density (PreparedRunner.hostDensity); the runner's factory is then unused.
   */
  readonly transitions?: "runner" | "host";
}

/** Whether a runner's plan leaves the transitions to the host's method, serving only the batched density. */
export function servesGradientsOnly(runner: PlannedRunner | undefined): boolean {
  return runner?.plan.transitions === "host";
}

/** The plan a runner was prepared for, its shape chosen: the one owner of a run's chains, tree depth, metric, float type and shape. */
export interface PreparedPlan extends RunPlan {
  readonly shape: string;
}

/**
 * A transition runner on the plan it was prepared for (a PreparedRunner is one): what
 * SampleOptions.transitionRunner takes. A run on it takes its chains, tree depth and metric from
 * the plan, so the runner's factory never sees other ones.
 */
export interface PlannedRunner {
  readonly plan: PreparedPlan;
  readonly factory: TransitionRunnerFactory;
}

/**
 * The options with the chains, tree depth and metric of their transition runner's plan, which owns
 * them (options without a runner are returned as they are). A value the caller gives that differs
 * from the plan's is refused: the runner's buffers and kernels are laid out for the plan's.
 */
export function planOwnedOptions<O extends SettingsOptions & { readonly transitionRunner?: PlannedRunner }>(options: O): O {
  const runner = options.transitionRunner;
  if (!runner) return options;
  const { chains, maxDepth, metric } = runner.plan;
  const owned = { chains, maxDepth, metric } as const;
  for (const name of ["chains", "maxDepth", "metric"] as const) {
    const given = options[name];
    if (given !== undefined && given !== owned[name]) {
      throw new SamplerOptionError(`${name}: the transition runner was prepared for ${name} ${owned[name]}, the options ask for ${given}; leave ${name} out (the runner's plan gives it), or prepare the runner for ${given}`);
    }
  }
  return { ...options, ...owned };
}

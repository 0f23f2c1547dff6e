/**
 * Transition runners by name, as tensor backends are registered: a package that runs NUTS
 * transitions somewhere else (the GPU sampler, @ppl/ppl-vulkan) registers a provider, and the
 * sampler's callers select it by name. One plan object describes the run's layout to the caller,
 * the sampler and the runner alike.
 */
import type { CompiledModel } from "../model/compile.ts";
import type { BatchedDensity } from "./density.ts";
import { SamplerOptionError } from "./errors.ts";
import type { MetricKind } from "./metric.ts";
import type { TransitionRunnerFactory } from "./transition-runner.ts";

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
}

/** A runner prepared for one model and plan. */
export interface PreparedRunner {
  /** Plugs into SampleOptions.transitionRunner. */
  readonly factory: TransitionRunnerFactory;
  /** The layout the runner chose (e.g. "thread"), for the log. */
  readonly shape: string;
  /** A line the user must see: a layout that may return wrong draws on this device. */
  readonly warning?: string;
  /** A line for the log: what the runner did to the data (e.g. which it stores in 16 bits). */
  readonly note?: string;
  /** Most iterations the runner computes in one call (its block), where it computes blocks. */
  readonly blockIterations?: number;
  /** The host density for the sampler's own evaluations (initialization, step-size searches), moved to the runner's device where it can. */
  hostDensity<T extends BatchedDensity>(host: T): T;
  dispose(): void;
}

/** Prepares a runner for a compiled model. */
export type RunnerProvider = (model: CompiledModel, plan: RunPlan) => Promise<PreparedRunner>;

const providers = new Map<string, RunnerProvider>();

/** Registers a transition runner under `name` (a later registration replaces an earlier one). */
export function registerTransitionRunner(name: string, provider: RunnerProvider): void {
  providers.set(name, provider);
}

/** Prepares the transition runner registered under `name` for a model and plan. */
export async function prepareTransitionRunner(name: string, model: CompiledModel, plan: RunPlan): Promise<PreparedRunner> {
  const provider = providers.get(name);
  if (!provider) {
    const known = [...providers.keys()].join(", ") || "none";
    throw new SamplerOptionError(`no transition runner named '${name}' (registered: ${known}); import the package that provides it, e.g. @ppl/ppl-vulkan for 'vulkan'`);
  }
  return provider(model, plan);
}

/** Names of the registered transition runners. */
export function transitionRunnerNames(): string[] {
  return [...providers.keys()];
}

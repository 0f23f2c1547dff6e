/**
 * Transition runners by name, as tensor backends are registered: a package that runs NUTS
 * transitions somewhere else (the GPU sampler, @ppl/ppl-vulkan) registers a provider, and the
 * sampler's callers select it by name. One plan object describes the run's layout to the caller,
 * the sampler and the runner alike.
 */
import type { CompiledModel } from "../model/compile.ts";
import type { BatchedDensity } from "./density.ts";
import { SamplerOptionError } from "./errors.ts";
import type { PlannedRunner, RunPlan } from "./transition-runner.ts";

export type { RunPlan } from "./transition-runner.ts";

/**
 * A runner prepared for one model and plan. It plugs into SampleOptions.transitionRunner as it is:
 * its `plan` (the plan it was given, with the shape it chose, e.g. "thread") is the run's chains,
 * tree depth, metric, float type and shape, and `factory` makes the run's runner.
 */
export interface PreparedRunner extends PlannedRunner {
  /** A line the user must see: a layout that may return wrong draws on this device. */
  readonly warning?: string;
  /** A line for the log: what the runner did to the data (e.g. which it stores in 16 bits). */
  readonly note?: string;
  /** Most iterations the runner computes in one call (its block), where it computes blocks. */
  readonly blockIterations?: number;
  /** The host density for the sampler's own evaluations (initialization, step-size searches), moved to the runner's device where it can. */
  hostDensity<T extends BatchedDensity>(host: T): T;
  /** Gives the runner's device resources back; the runner is not used after. */
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

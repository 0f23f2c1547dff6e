import { SamplerOptionError } from "@ppl/ppl";
import { registerTransitionRunner, type RunPlan } from "@ppl/ppl/runner";
import { prepareGpuGradient } from "./gpu-gradient.ts";
import { prepareGpuNuts, type ExecutionShape } from "./gpu-runner.ts";

const SHAPES: readonly string[] = ["thread", "workgroup", "device"] satisfies readonly ExecutionShape[];

/** The GPU sampler's options from ppl's run plan (the plan's shape must be one of the execution shapes). */
export function gpuNutsOptions(plan: RunPlan) {
  if (plan.shape !== undefined && !SHAPES.includes(plan.shape)) {
    throw new SamplerOptionError(`the GPU sampler has no shape '${plan.shape}': use ${SHAPES.join(", ")}, or leave it out to choose from the model`);
  }
  return { ...plan, shape: plan.shape as ExecutionShape | undefined };
}

/**
 * Registers the GPU sampler as ppl's "vulkan" transition runner: NUTS on the device, or, for a plan
 * whose transitions run on the host (any layer method), the device's batched gradient alone.
 */
export function registerGpuRunner(): void {
  registerTransitionRunner("vulkan", (model, plan) => (plan.transitions === "host" ? prepareGpuGradient(model, plan) : prepareGpuNuts(model, gpuNutsOptions(plan))));
}

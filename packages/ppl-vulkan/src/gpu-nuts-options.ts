import { SamplerOptionError } from "@ppl/ppl";
import type { RunPlan } from "@ppl/ppl/runner";
import type { ExecutionShape } from "./gpu-runner.ts";

const SHAPES: readonly string[] = ["thread", "workgroup", "device"] satisfies readonly ExecutionShape[];

/** The GPU sampler's options from ppl's run plan (the plan's shape must be one of the execution shapes). */
export function gpuNutsOptions(plan: RunPlan) {
  if (plan.shape !== undefined && !SHAPES.includes(plan.shape)) {
    throw new SamplerOptionError(`the GPU sampler has no shape '${plan.shape}': use ${SHAPES.join(", ")}, or leave it out to choose from the model`);
  }
  return { ...plan, shape: plan.shape as ExecutionShape | undefined };
}

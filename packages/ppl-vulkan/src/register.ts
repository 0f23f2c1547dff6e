import { registerRunPlacement, registerTransitionRunner } from "@ppl/ppl/runner";
import { gpuNutsOptions } from "./gpu-nuts-options.ts";
import { prepareGpuGradient } from "./gpu-gradient.ts";
import { prepareGpuNuts } from "./gpu-runner.ts";
import { placeRun } from "./place-run.ts";
import { prepareRun } from "./prepare-run.ts";

/**
 * Registers the GPU sampler as ppl's "vulkan" transition runner: NUTS on the device, or, for a plan
 * whose transitions run on the host (any layer method), the device's batched gradient alone.
 */
export function registerGpuRunner(): void {
  registerTransitionRunner("vulkan", (model, plan) => (plan.transitions === "host" ? prepareGpuGradient(model, plan) : prepareGpuNuts(model, gpuNutsOptions(plan))));
}

/** Registers placeRun and prepareRun as ppl's placement policy: sample(model, data, { backend }) then places a run as `ppl sample` does. */
export function registerPlacement(): void {
  registerRunPlacement({ placeRun: (options) => placeRun(options), prepareRun });
}

/**
 * `@ppl/ppl-vulkan`: the GPU sampler. ppl's NUTS transitions of many chains as Vulkan kernels (a
 * fused kernel per chain or workgroup, or batched gradient kernels with a controller), built
 * from ppl's compiled model and plugged into ppl's sampler as its transition runner; and the
 * placement policy (placeRun, prepareRun), which sees both the CPU and the GPU.
 *
 * @module \@ppl/ppl-vulkan
 */
export { largestFactorisation, modelWork } from "./execution-shape.ts";
export { placeRun, placeBatched, batchedRoundsGain, placeBackend, hostTransitions, devicesForAll, deviceGroups, type PlaceRunInput } from "./place-run.ts";
export { prepareRun, precisionHint } from "./prepare-run.ts";
export type { PlacedPlan, PreparedRun, PendingGpu, Placement, PlacementRequest, PlaceRunOptions, BatchedRounds, DeviceGroup, OptionSpelling } from "@ppl/ppl/runner";
export { prepareGpuNuts, chooseShape, chooseStepSizeSearch, type ExecutionShape, type GpuNuts, type GpuNutsOptions, type GpuModel } from "./gpu-runner.ts";
export { prepareGpuGradient, GRADIENT_SHAPE, type GpuGradient } from "./gpu-gradient.ts";
export { closeIdleDevices, IDLE_DEVICE_MS } from "./device-pool.ts";
export { chooseControllerMode, type ControllerMode } from "./controller-program.ts";
export type { KernelProfile, KernelProfilePart } from "./engine.ts";
export { batchedGradient, type BatchedGradient, type BatchedGradientOptions, type BatchedModel } from "./batched-gradient.ts";
export { nutsProgram, type NutsProgram, type NutsProgramOptions } from "./nuts-program.ts";
export { DataPrecisionError, HALF_DATA_MIN, halfDataLeaves, roundedDataModel, type DataPrecision, type DataValues } from "./data-precision.ts";

import { registerGpuRunner, registerPlacement } from "./register.ts";
// Importing the package makes the GPU sampler selectable by name, prepareTransitionRunner("vulkan", …),
// and gives sample(model, data, { backend }) its placement.
registerGpuRunner();
registerPlacement();

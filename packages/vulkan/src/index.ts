// @ppl/vulkan: Vulkan compute through a native addon, in Kompute's four nouns:
// manager (device), buffer, algorithm (pipeline), sequence (command buffer).
// Importing this module never throws, even when the addon is not built.
export { loadAddon, addonPath, type AddonLoad, type NativeAddon, type PipelineExecutable } from "./native.ts";
export { listDevices, usableDevices, type DeviceInfo, type DeviceListing } from "./devices.ts";
export { VulkanManager, type ManagerOptions } from "./manager.ts";
export { VulkanBuffer } from "./buffer.ts";
export { Algorithm, specFloat32, type AlgorithmOptions } from "./algorithm.ts";
export { Sequence, type GroupCount, type CopyOptions } from "./sequence.ts";
export { compileGlsl, defaultSpirvCacheDir, glslcVersion, numberLines, type CompileOptions } from "./glslc.ts";
export {
  VulkanError,
  DeviceMemoryError,
  VulkanUnavailableError,
  ShaderCompileError,
  ShaderCompilerMissingError,
} from "./errors.ts";
export { preludeSource, type PreludeDType } from "./prelude.ts";
export { vulkanBackend, type VulkanBackendOptions } from "./backend.ts";
export { planProgram, type EpilogueSource, type KernelPlan, type PlanOptions, type ProgramPlan } from "./codegen/program.ts";
export { limitsOf, type RenderLimits } from "./codegen/limits.ts";
export { ScanLoopBudgetError, scanLoopIterations } from "./codegen/scan-budget.ts";
export { float16Bits, float16Value, roundToFloat16, toFloat16Bytes, FLOAT16_MAX, FLOAT16_EPSILON } from "./half.ts";

import { registerBackend } from "@ppl/tensor/backend";
import { vulkanBackend } from "./backend.ts";
// Registered lazily: nothing touches Vulkan until a caller asks for the backend by name.
registerBackend("vulkan", () => vulkanBackend());

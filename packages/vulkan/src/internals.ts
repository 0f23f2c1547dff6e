// @ppl/vulkan/internals: the code generator's building blocks, for packages that render kernels
// of their own (the GPU sampler in @ppl/ppl-vulkan), the tests and the benchmarks. Not a user API.
export { kernelPrelude } from "./codegen/kernel-prelude.ts";
export { renderCooperative, type CooperativeProgram } from "./codegen/cooperative.ts";
export type { CooperativeLayout } from "./codegen/cooperative-merge.ts";
export { cooperativeRowPasses } from "./codegen/cooperative-row-pass.ts";
export { glslType, bufferType, literal, convert } from "./codegen/glsl.ts";
export { flatten, unflatten, broadcastIndex } from "./codegen/index-math.ts";
export { Scope } from "./codegen/scope.ts";
export { renderSequential, type LeafReader, type SequentialProgram, type Spill } from "./codegen/sequential.ts";
export { type Binding, type KernelPlan, type ProgramPlan } from "./codegen/program.ts";
export { BYTES, boundBytes, toBytes, residentProgram, type Dispatch, type ResidentProgram } from "./resident-program.ts";
export { HALF_STORAGE_EXTENSION, halfRead } from "./codegen/shader.ts";
export { REFERENCE_LIMITS } from "./codegen/reference-devices.ts";
export { segmentLayout, type SegmentLayout } from "./codegen/scatter-segments.ts";
export { goldenSource, type IncludedText } from "./golden-source.ts";

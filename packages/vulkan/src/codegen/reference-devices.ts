import { limitsOf, type RenderLimits } from "./limits.ts";

/**
 * Render limits of two devices as listDevices() reported them, so that kernels can be planned (and
 * golden-tested) without the device: an NVIDIA H200 and Mesa's lavapipe.
 */
export const REFERENCE_LIMITS: { readonly h200: RenderLimits; readonly lavapipe: RenderLimits } = {
  h200: limitsOf({
    type: "discrete-gpu",
    driver: "nvidia",
    limits: { maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [2 ** 31 - 1, 65535, 65535], maxComputeWorkGroupSize: [1024, 1024, 64], maxComputeSharedMemorySize: 49152 },
    features: { shaderFloat64: true, storageBuffer16BitAccess: true },
    subgroup: { size: 32, operations: ["basic", "vote", "arithmetic", "ballot", "shuffle", "shuffleRelative", "clustered", "quad"], inCompute: true },
  }),
  lavapipe: limitsOf({
    type: "cpu",
    driver: "llvmpipe",
    limits: { maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [65535, 65535, 65535], maxComputeWorkGroupSize: [1024, 1024, 1024], maxComputeSharedMemorySize: 32768 },
    features: { shaderFloat64: true, storageBuffer16BitAccess: true },
    subgroup: { size: 8, operations: ["basic", "vote", "arithmetic", "ballot", "shuffle"], inCompute: true },
  }),
};

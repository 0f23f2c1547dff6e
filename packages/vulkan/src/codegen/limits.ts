/**
 * The device facts the renderer uses, as data: codegen reads these and never asks which device
 * it is on. Built from listDevices() for a real device, or by hand in tests.
 */
export interface RenderLimits {
  /** Threads per workgroup for one-thread-per-unit kernels. */
  readonly localSize: number;
  /** Largest workgroup count in x (larger domains spill into y). */
  readonly maxGroupCountX: number;
  /** Whether the device has shaderFloat64. */
  readonly float64: boolean;
}

/** Limits of a device as listDevices() reports them. */
export function limitsOf(device: {
  limits: { maxComputeWorkGroupInvocations: number; maxComputeWorkGroupCount: readonly number[] };
  features: { shaderFloat64: boolean };
}): RenderLimits {
  return {
    localSize: Math.min(64, device.limits.maxComputeWorkGroupInvocations),
    maxGroupCountX: device.limits.maxComputeWorkGroupCount[0]!,
    float64: device.features.shaderFloat64,
  };
}

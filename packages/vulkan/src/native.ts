// Types of the native addon (native/*.cpp) and the code that loads it.
// Loading is lazy and never throws: a missing build or a missing Vulkan
// loader becomes a reason string that callers can show.
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/** Raw device description as the addon returns it (see devices.ts for the documented type). */
export interface NativeDeviceInfo {
  index: number;
  name: string;
  type: "discrete" | "integrated" | "cpu" | "virtual" | "other";
  apiVersion: string;
  driver: string;
  driverInfo: string;
  vendorId: number;
  deviceId: number;
  memoryHeaps: { size: number; deviceLocal: boolean }[];
  hostVisibleDeviceLocal: boolean;
  limits: {
    maxComputeWorkGroupSize: [number, number, number];
    maxComputeWorkGroupInvocations: number;
    maxComputeWorkGroupCount: [number, number, number];
    maxComputeSharedMemorySize: number;
    maxStorageBufferRange: number;
    maxPushConstantsSize: number;
    maxPerStageDescriptorStorageBuffers: number;
    maxBufferSize: number;
    minStorageBufferOffsetAlignment: number;
    timestampPeriod: number;
  };
  subgroup: { size: number; operations: string[]; inCompute: boolean };
  features: {
    shaderFloat64: boolean;
    /** VK_KHR_pipeline_executable_properties: pipelines can report their compiled code's statistics. */
    pipelineExecutableInfo?: boolean;
    /** VkPhysicalDevice16BitStorageFeatures.storageBuffer16BitAccess: storage buffers may hold float16_t (data stored in half precision). */
    storageBuffer16BitAccess?: boolean;
    /** VK_KHR_shader_clock's shaderSubgroupClock (enabled when present): kernels may read the cycle counter (clock2x32ARB), for profiling. */
    shaderSubgroupClock?: boolean;
    shaderInt64: boolean;
    shaderInt16: boolean;
    atomicFloat: {
      extension: boolean;
      bufferFloat32Atomics: boolean;
      bufferFloat32AtomicAdd: boolean;
      bufferFloat64Atomics: boolean;
      bufferFloat64AtomicAdd: boolean;
      sharedFloat32AtomicAdd: boolean;
      sharedFloat64AtomicAdd: boolean;
    };
  };
  rejected: string | null;
}

export type Bytes = ArrayBufferView | ArrayBuffer;

export interface NativeManager {
  readonly deviceIndex: number;
  readonly deviceName: string;
  readonly forceStaging: boolean;
  readonly destroyed: boolean;
  readonly lost: boolean;
  savePipelineCache(): void;
  destroy(): void;
}

export interface NativeBuffer {
  readonly byteLength: number;
  readonly hostVisible: boolean;
  readonly destroyed: boolean;
  write(data: Bytes, byteOffset?: number): void;
  writeAsync(data: Bytes, byteOffset?: number): Promise<void>;
  read(byteLength?: number, byteOffset?: number): ArrayBuffer;
  readAsync(byteLength?: number, byteOffset?: number): Promise<ArrayBuffer>;
  readInto(target: Bytes, byteOffset?: number): void;
  fillZero(): void;
  destroy(): void;
}

export interface NativeAlgorithm {
  readonly bufferCount: number;
  readonly pushConstantSize: number;
  readonly localSize: [number, number, number];
  readonly destroyed: boolean;
  /** Whether the pipeline exists (false while a deferred one is still being built). */
  readonly built: boolean;
  statistics(): PipelineExecutable[] | null;
  /** Builds a deferred pipeline on a worker thread. */
  build(): Promise<void>;
  destroy(): void;
}

/** One compiled executable of a pipeline, with the statistics its driver reports (VK_KHR_pipeline_executable_properties). */
export interface PipelineExecutable {
  readonly name: string;
  readonly description: string;
  readonly subgroupSize: number;
  /** Driver-defined figures, e.g. registers, spills, shared memory, instructions; each named by the driver. */
  readonly statistics: readonly { readonly name: string; readonly description: string; readonly value: number }[];
}

export interface NativeSequence {
  readonly commandCount: number;
  readonly running: boolean;
  readonly destroyed: boolean;
  dispatch(
    algorithm: NativeAlgorithm,
    buffers: NativeBuffer[],
    x: number,
    y: number,
    z: number,
    pushConstants?: Bytes,
  ): NativeSequence;
  copy(src: NativeBuffer, dst: NativeBuffer, byteLength?: number, srcOffset?: number, dstOffset?: number): NativeSequence;
  submit(): Promise<void>;
  submitSync(): void;
  destroy(): void;
}

export interface NativeManagerOptions {
  forceStaging?: boolean;
  robustBufferAccess?: boolean;
  pipelineCachePath?: string;
  pipelineStatistics?: boolean;
}

/** Test hooks of the addon: the next call of `call` after `skip` more reports `result`. */
export interface NativeTestHooks {
  failCall(call: "vkQueueSubmit" | "vkWaitForFences" | "vkAllocateMemory", result: string, skip?: number): void;
  clear(): void;
  /** Device contexts and device buffers alive in this process. */
  live(): { contexts: number; buffers: number };
  /** Staging buffers and command buffers allocated in this process so far (only ever grow). */
  allocations(): { stagingBuffers: number; commandBuffers: number };
}

export interface NativeAddon {
  listDevices(): { devices: NativeDeviceInfo[]; reason: string | null };
  Manager: new (deviceIndex: number | undefined, options: NativeManagerOptions) => NativeManager;
  Buffer: new (manager: NativeManager, byteLength: number, readback?: boolean) => NativeBuffer;
  Algorithm: new (
    manager: NativeManager,
    spirv: Uint32Array,
    bufferCount: number,
    specConstants: Uint32Array | undefined,
    pushConstantSize: number,
    deferred?: boolean,
  ) => NativeAlgorithm;
  Sequence: new (manager: NativeManager) => NativeSequence;
  /** Simulated device faults for tests (native/test_hooks.hpp); inert unless armed. */
  testHooks: NativeTestHooks;
}

export type AddonLoad = { ok: true; addon: NativeAddon; path: string } | { ok: false; reason: string; path: string };

/** Where `pnpm build` puts the addon; $PPL_VULKAN_ADDON overrides it (tests, custom builds). */
export const addonPath =
  process.env.PPL_VULKAN_ADDON || fileURLToPath(new URL("../build/Release/ppl_vulkan.node", import.meta.url));

let cached: AddonLoad | undefined;

/** Loads the native addon once; returns it, or the reason it could not be loaded. Never throws. */
export function loadAddon(): AddonLoad {
  if (cached) return cached;
  if (!existsSync(addonPath)) {
    cached = {
      ok: false,
      path: addonPath,
      reason: `the Vulkan addon is not built (${addonPath} is missing): run \`pnpm build\` ` +
        "(needs cmake, g++ and libvulkan-dev)",
    };
    return cached;
  }
  try {
    const require = createRequire(import.meta.url);
    cached = { ok: true, addon: require(addonPath) as NativeAddon, path: addonPath };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    cached = { ok: false, path: addonPath, reason: `the Vulkan addon failed to load: ${message}` };
  }
  return cached;
}

// The manager: one Vulkan device with its queue, memory, pipeline cache and
// command pool; buffers, algorithms and sequences are created from it.
import { Algorithm, packSpecConstants, type AlgorithmOptions } from "./algorithm.ts";
import { VulkanBuffer } from "./buffer.ts";
import { listDevices, type DeviceInfo } from "./devices.ts";
import { VulkanUnavailableError, callNative, callNativeAsync } from "./errors.ts";
import { loadAddon, type NativeAddon, type NativeManager } from "./native.ts";
import { Sequence } from "./sequence.ts";

export interface ManagerOptions {
  /** Use device-local memory behind staging copies even where host-visible device memory exists. */
  forceStaging?: boolean;
  /** Enable robustBufferAccess so out-of-bounds shader accesses are harmless (default true). */
  robustBufferAccess?: boolean;
  /** Load the pipeline cache from this file and save it there on destroy() / savePipelineCache(). */
  pipelineCachePath?: string;
  /**
   * Keep each pipeline's compiled-code statistics where the device reports them
   * (VK_KHR_pipeline_executable_properties), for Algorithm.statistics(); off by default.
   */
  pipelineStatistics?: boolean;
}

function requireAddon(): NativeAddon {
  const load = loadAddon();
  if (!load.ok) throw new VulkanUnavailableError(load.reason);
  return load.addon;
}

/** One Vulkan device (queue, memory, pipeline cache): the factory for buffers, algorithms and sequences. */
export class VulkanManager {
  /** @internal the addon object. */
  readonly handle: NativeManager;
  /** The device this manager runs on. */
  readonly device: DeviceInfo;
  private readonly addon: NativeAddon;

  /** Opens device `deviceIndex` (default: the best usable device: discrete > integrated > virtual > cpu). */
  constructor(deviceIndex?: number, options: ManagerOptions = {}) {
    this.addon = requireAddon();
    const addon = this.addon;
    const handle = callNative(() => new addon.Manager(deviceIndex, { ...options }));
    this.handle = handle;
    const device = listDevices().devices[handle.deviceIndex];
    if (device === undefined) throw new VulkanUnavailableError("the device disappeared while opening it");
    this.device = device;
  }

  /** Index of the device in listDevices(). */
  get deviceIndex(): number {
    return this.device.index;
  }

  /** True when transfers are forced through staging buffers. */
  get forceStaging(): boolean {
    return callNative(() => this.handle.forceStaging);
  }

  /** True after destroy(). */
  get destroyed(): boolean {
    return this.handle.destroyed;
  }

  /** True once the device was lost: every later call is refused, and only a new manager can go on. */
  get lost(): boolean {
    return this.handle.lost;
  }

  /** Allocates a device buffer of `byteLength` bytes (contents undefined; see fillZero). */
  buffer(byteLength: number): VulkanBuffer {
    const addon = this.addon;
    return new VulkanBuffer(callNative(() => new addon.Buffer(this.handle, byteLength)));
  }

  /**
   * Allocates a buffer in host memory (cached where the device has such memory) for results that
   * the host reads back often: a sequence copies into it and `read` is then a memcpy, without a
   * staging buffer and a submission of its own. Copies only: shaders do not bind it.
   */
  readbackBuffer(byteLength: number): VulkanBuffer {
    const addon = this.addon;
    return new VulkanBuffer(callNative(() => new addon.Buffer(this.handle, byteLength, true)));
  }

  /** Allocates a buffer holding a copy of `data`. */
  bufferFrom(data: ArrayBufferView): VulkanBuffer {
    const buffer = this.buffer(data.byteLength);
    try {
      buffer.write(data);
    } catch (error) {
      buffer.destroy();
      throw error;
    }
    return buffer;
  }

  /** Builds a compute pipeline from SPIR-V (see compileGlsl) for `options.buffers` storage buffers. */
  algorithm(spirv: Uint32Array, options: AlgorithmOptions): Algorithm {
    const addon = this.addon;
    const specConstants = packSpecConstants(options.specConstants);
    return new Algorithm(
      callNative(
        () => new addon.Algorithm(this.handle, spirv, options.buffers, specConstants, options.pushConstantSize ?? 0),
      ),
    );
  }

  /**
   * As algorithm(), with the driver's build of the pipeline (what a large shader takes a second
   * for) on a worker thread: the main thread goes on meanwhile, and several build at once.
   */
  async algorithmAsync(spirv: Uint32Array, options: AlgorithmOptions): Promise<Algorithm> {
    const addon = this.addon;
    const specConstants = packSpecConstants(options.specConstants);
    const handle = callNative(() => new addon.Algorithm(this.handle, spirv, options.buffers, specConstants, options.pushConstantSize ?? 0, true));
    try {
      await callNativeAsync(() => handle.build());
    } catch (e) {
      handle.destroy();
      throw e;
    }
    return new Algorithm(handle);
  }

  /** Starts an empty sequence (a command buffer to record dispatches and copies into). */
  sequence(): Sequence {
    const addon = this.addon;
    return new Sequence(callNative(() => new addon.Sequence(this.handle)));
  }

  /** Writes the pipeline cache to options.pipelineCachePath (no-op without a path). */
  savePipelineCache(): void {
    callNative(() => this.handle.savePipelineCache());
  }

  /**
   * Saves the pipeline cache and releases the manager. Objects created from
   * it stay usable and keep the device open until they are destroyed.
   */
  destroy(): void {
    callNative(() => this.handle.destroy());
  }
}

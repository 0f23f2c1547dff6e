// Algorithms: compute pipelines from SPIR-V with N storage-buffer bindings
// (set 0, bindings 0..N-1), specialization constants and push constants.
import { callNative } from "./errors.ts";
import type { NativeAlgorithm, PipelineExecutable } from "./native.ts";

export interface AlgorithmOptions {
  /** Number of storage buffers the shader binds (set 0, bindings 0..buffers-1). */
  buffers: number;
  /** 32-bit values for constant_id 0..k (use specFloat32 for float constants). */
  specConstants?: Uint32Array | readonly number[];
  /** Bytes of push constants each dispatch passes (multiple of 4, at most maxPushConstantsSize). */
  pushConstantSize?: number;
}

/** A compute pipeline: created by VulkanManager.algorithm(), dispatched by sequences. */
export class Algorithm {
  /** @internal the addon object; used by sequences. */
  readonly handle: NativeAlgorithm;

  /** @internal use VulkanManager.algorithm(). */
  constructor(handle: NativeAlgorithm) {
    this.handle = handle;
  }

  /** Number of storage buffers each dispatch must pass. */
  get bufferCount(): number {
    return callNative(() => this.handle.bufferCount);
  }

  /** Bytes of push constants each dispatch must pass. */
  get pushConstantSize(): number {
    return callNative(() => this.handle.pushConstantSize);
  }

  /** The local_size the shader declares (its default value when local_size_x_id etc. are used). */
  get localSize(): [number, number, number] {
    return callNative(() => this.handle.localSize);
  }

  /**
   * What the driver compiled the shader into — registers, spills, shared memory, instruction
   * counts, as the driver names them — or null when the manager was created without
   * `pipelineStatistics` or the device does not report them.
   */
  statistics(): PipelineExecutable[] | null {
    return callNative(() => this.handle.statistics());
  }

  /** True after destroy(). */
  get destroyed(): boolean {
    return this.handle.destroyed;
  }

  /** Releases the pipeline (kept alive while a recorded sequence still uses it). */
  destroy(): void {
    this.handle.destroy();
  }
}

/** The bit pattern of a float32, for a float specialization constant. */
export function specFloat32(value: number): number {
  const view = new DataView(new ArrayBuffer(4));
  view.setFloat32(0, value, true);
  return view.getUint32(0, true);
}

/** Checks and packs specialization constants into a Uint32Array. */
export function packSpecConstants(values: Uint32Array | readonly number[] | undefined): Uint32Array | undefined {
  if (values === undefined || values instanceof Uint32Array) return values;
  for (const [i, value] of values.entries()) {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff) {
      throw new RangeError(`specConstants[${i}] must be a uint32 (use specFloat32 for floats), got ${value}`);
    }
  }
  return Uint32Array.from(values);
}

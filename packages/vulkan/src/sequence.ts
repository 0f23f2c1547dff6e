// Sequences: many dispatches and copies recorded into one command buffer,
// submitted as a whole and re-submittable without re-recording.
//
// Barriers are automatic: each command starts after every earlier command of
// the sequence has finished and its writes are visible; the sequence starts
// after earlier GPU work and ends with its writes visible to the host.
import type { Algorithm } from "./algorithm.ts";
import type { VulkanBuffer } from "./buffer.ts";
import { callNative, callNativeAsync } from "./errors.ts";
import type { Bytes, NativeSequence } from "./native.ts";

/** Workgroup counts: x, or [x, y?, z?] (missing ones are 1). */
export type GroupCount = number | readonly [number, number?, number?];

export interface CopyOptions {
  byteLength?: number;
  srcOffset?: number;
  dstOffset?: number;
}

/** A recorded command buffer: created by VulkanManager.sequence(), submitted any number of times. */
export class Sequence {
  /** @internal the addon object. */
  readonly handle: NativeSequence;

  /** @internal use VulkanManager.sequence(). */
  constructor(handle: NativeSequence) {
    this.handle = handle;
  }

  /** Records a dispatch of `algorithm` over `buffers` (in binding order); returns this for chaining. */
  dispatch(algorithm: Algorithm, buffers: readonly VulkanBuffer[], groups: GroupCount, pushConstants?: Bytes): this {
    const [x, y = 1, z = 1] = typeof groups === "number" ? [groups] : groups;
    callNative(() =>
      this.handle.dispatch(
        algorithm.handle,
        buffers.map((buffer) => buffer.handle),
        x,
        y,
        z,
        pushConstants,
      ),
    );
    return this;
  }

  /** Records a copy of `byteLength` bytes (default: the rest of src) from src to dst. */
  copy(src: VulkanBuffer, dst: VulkanBuffer, options: CopyOptions = {}): this {
    callNative(() =>
      this.handle.copy(src.handle, dst.handle, options.byteLength, options.srcOffset ?? 0, options.dstOffset ?? 0),
    );
    return this;
  }

  /** Submits the recorded commands; resolves when the GPU is done, waiting off the main thread. */
  submit(): Promise<void> {
    return callNativeAsync(() => this.handle.submit());
  }

  /** Submits and blocks the calling thread until the GPU is done (tests, tiny jobs). */
  submitSync(): void {
    callNative(() => this.handle.submitSync());
  }

  /** Number of dispatches and copies recorded. */
  get commandCount(): number {
    return callNative(() => this.handle.commandCount);
  }

  /** True while a submission has not completed. */
  get running(): boolean {
    return callNative(() => this.handle.running);
  }

  /** True after destroy(). */
  get destroyed(): boolean {
    return this.handle.destroyed;
  }

  /** Releases the command buffer (after a running submission completes). */
  destroy(): void {
    this.handle.destroy();
  }
}

// Device buffers ("tensors"): bytes on the device, written and read from
// TypeScript. Reads and writes are ordered after all GPU work submitted and
// completed before them; they do not wait for a submission still running.
import { callNative, callNativeAsync } from "./errors.ts";
import type { Bytes, NativeBuffer } from "./native.ts";

/** A device buffer: created by VulkanManager.buffer(), bound to algorithms by sequences. */
export class VulkanBuffer {
  /** @internal the addon object; used by sequences. */
  readonly handle: NativeBuffer;

  /** @internal use VulkanManager.buffer(). */
  constructor(handle: NativeBuffer) {
    this.handle = handle;
  }

  /** Size in bytes, as requested. */
  get byteLength(): number {
    return callNative(() => this.handle.byteLength);
  }

  /** True when the buffer is mapped (direct reads/writes), false when transfers use staging copies. */
  get hostVisible(): boolean {
    return callNative(() => this.handle.hostVisible);
  }

  /** True after destroy(). */
  get destroyed(): boolean {
    return this.handle.destroyed;
  }

  /** Copies `data` into the buffer at `byteOffset` (any byte offset); blocks until done. */
  write(data: Bytes, byteOffset = 0): void {
    callNative(() => this.handle.write(data, byteOffset));
  }

  /** Like write, but waits for a staging copy off the main thread; `data` may be reused at once. */
  writeAsync(data: Bytes, byteOffset = 0): Promise<void> {
    return callNativeAsync(() => this.handle.writeAsync(data, byteOffset));
  }

  /** Reads `byteLength` bytes (default: to the end) from `byteOffset`; blocks until done. */
  read(byteLength?: number, byteOffset = 0): ArrayBuffer {
    return callNative(() => this.handle.read(byteLength, byteOffset));
  }

  /** Reads `target.byteLength` bytes from `byteOffset` into `target` (kept by the caller: nothing is allocated); blocks until done. */
  readInto(target: Bytes, byteOffset = 0): void {
    callNative(() => this.handle.readInto(target, byteOffset));
  }

  /** Like read, but waits for a staging copy off the main thread. */
  readAsync(byteLength?: number, byteOffset = 0): Promise<ArrayBuffer> {
    return callNativeAsync(() => this.handle.readAsync(byteLength, byteOffset));
  }

  /** Sets every byte to zero; blocks until done. */
  fillZero(): void {
    callNative(() => this.handle.fillZero());
  }

  /**
   * Releases the buffer. Any later use throws; a sequence that recorded it
   * refuses to submit, and the memory is freed once such sequences are gone.
   */
  destroy(): void {
    this.handle.destroy();
  }
}

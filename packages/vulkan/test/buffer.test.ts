import { afterAll, describe, expect, it } from "vitest";
import { VulkanBuffer, VulkanError, VulkanManager } from "../src/index.ts";
import type { NativeBuffer } from "../src/native.ts";
import { expectSameBytes, lavapipe, randomBytes } from "./helpers.ts";

const device = lavapipe();
const managers = {
  direct: new VulkanManager(device.index),
  staging: new VulkanManager(device.index, { forceStaging: true }),
};
afterAll(() => {
  managers.direct.destroy();
  managers.staging.destroy();
});

for (const [mode, manager] of Object.entries(managers)) {
  describe(`buffers, ${mode} path`, () => {
    it("takes the expected transfer path", () => {
      const buffer = manager.buffer(16);
      // lavapipe memory is device-local and host-visible: only forceStaging
      // makes the staging code run.
      expect(buffer.hostVisible).toBe(mode === "direct");
      buffer.destroy();
    });

    it("round-trips whole buffers of many sizes", () => {
      for (const size of [1, 3, 4, 5, 17, 1000, (1 << 20) + 3]) {
        const data = randomBytes(size, size);
        const buffer = manager.bufferFrom(data);
        expect(buffer.byteLength).toBe(size);
        expectSameBytes(buffer.read(), data);
        buffer.destroy();
      }
    });

    it("writes and reads at any byte offset, including ones not a multiple of 4", () => {
      const size = 4099;
      const model = randomBytes(size, 3);
      const buffer = manager.bufferFrom(model);
      for (const [offset, length] of [[1, 7], [3, 1], [5, 1000], [4095, 4], [2, 4097]] as const) {
        const patch = randomBytes(length, offset * 31 + length);
        buffer.write(patch, offset);
        model.set(patch, offset);
        expectSameBytes(buffer.read(length, offset), patch);
      }
      expectSameBytes(buffer.read(), model);
      // A typed-array view into the middle of a larger ArrayBuffer writes only its own bytes.
      const backing = new Float32Array([1, 2, 3, 4, 5, 6]);
      buffer.write(backing.subarray(2, 4), 9);
      expect(new Float32Array(buffer.read(8, 9).slice(0))).toEqual(new Float32Array([3, 4]));
      buffer.destroy();
    });

    it("has async read and write", async () => {
      const data = randomBytes(100_003, 11);
      const buffer = manager.buffer(data.length);
      await buffer.writeAsync(data);
      expectSameBytes(await buffer.readAsync(), data);
      expectSameBytes(await buffer.readAsync(10, 7), data.subarray(7, 17));
      await expect(buffer.readAsync(10, 100_000)).rejects.toThrow(RangeError);
      buffer.destroy();
    });

    it("fills with zeros", () => {
      const buffer = manager.bufferFrom(randomBytes(1027, 5));
      buffer.fillZero();
      expectSameBytes(buffer.read(), new Uint8Array(1027));
      buffer.destroy();
    });

    it("rejects out-of-range and malformed arguments", () => {
      const buffer = manager.buffer(10);
      expect(() => buffer.write(new Uint8Array(4), 7)).toThrow(RangeError);
      expect(() => buffer.write(new Uint8Array(11))).toThrow(RangeError);
      expect(() => buffer.read(11)).toThrow(RangeError);
      expect(() => buffer.read(1, 10)).toThrow(RangeError);
      expect(() => buffer.read(undefined, 11)).toThrow(RangeError);
      expect(() => buffer.read(1.5)).toThrow(RangeError);
      expect(() => buffer.write(new Uint8Array(1), -1)).toThrow(RangeError);
      expect(() => buffer.write("abc" as unknown as Uint8Array)).toThrow(TypeError);
      expect(() => manager.buffer(0)).toThrow(RangeError);
      expect(() => manager.buffer(Number.NaN)).toThrow(RangeError);
      expectSameBytes(buffer.read(0, 10), new Uint8Array(0));
      buffer.destroy();
    });
  });
}

describe("buffer failures", () => {
  const manager = managers.direct;

  it("turns an allocation larger than the heap into a VulkanError", () => {
    const heap = Math.max(...device.memoryHeaps.map((h) => h.size));
    let error: unknown;
    try {
      manager.buffer(heap + 4096);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(VulkanError);
    const vkError = error as VulkanError;
    expect(vkError.result).toBe("VK_ERROR_OUT_OF_DEVICE_MEMORY");
    expect(["vkAllocateMemory", "vkCreateBuffer"]).toContain(vkError.call);
    expect(vkError.message).toMatch(/^vk\w+ failed: VK_ERROR_OUT_OF_DEVICE_MEMORY/);
    // The manager still works afterwards.
    const small = manager.bufferFrom(new Uint8Array([1, 2, 3]));
    expectSameBytes(small.read(), new Uint8Array([1, 2, 3]));
    small.destroy();
  });

  it("turns an absurd size into a VulkanError", () => {
    expect(() => manager.buffer(2 ** 52)).toThrow(VulkanError);
    expect(() => managers.staging.buffer(2 ** 52)).toThrow(/VK_ERROR_OUT_OF_DEVICE_MEMORY/);
  });

  it("throws on use after destroy", async () => {
    const buffer = manager.buffer(8);
    buffer.destroy();
    expect(buffer.destroyed).toBe(true);
    expect(() => buffer.read()).toThrow(/Buffer was destroyed/);
    expect(() => buffer.write(new Uint8Array(1))).toThrow(/destroyed/);
    expect(() => buffer.fillZero()).toThrow(/destroyed/);
    expect(() => buffer.byteLength).toThrow(/destroyed/);
    await expect(buffer.readAsync()).rejects.toThrow(/destroyed/);
    buffer.destroy(); // twice is harmless
  });

  it("refuses objects from a destroyed manager and objects of the wrong type", () => {
    const other = new VulkanManager(device.index);
    const survivor = other.bufferFrom(new Uint8Array([9, 8, 7]));
    other.destroy();
    expect(() => other.buffer(4)).toThrow(/Manager was destroyed/);
    expect(() => other.sequence()).toThrow(/Manager was destroyed/);
    // Buffers keep the device alive after their manager is gone.
    expectSameBytes(survivor.read(), new Uint8Array([9, 8, 7]));
    survivor.destroy();

    // A manager handle passed where a buffer belongs must not be reinterpreted.
    const fake = new VulkanBuffer(manager.handle as unknown as NativeBuffer);
    const sequence = manager.sequence();
    expect(() => sequence.copy(fake, fake)).toThrow(TypeError);
    sequence.destroy();
  });
});

// readInto: the caller's array filled in place (a result read back every round allocates nothing),
// on both paths, at any offset; a target past the buffer's end is a RangeError, as read's is.
describe("readInto", () => {
  for (const [mode, manager] of Object.entries(managers)) {
    it(`${mode}: fills the caller's TypedArray, DataView or ArrayBuffer with the bytes read would return`, () => {
      const data = randomBytes(4099, 23);
      const buffer = manager.bufferFrom(data);
      const back = manager.readbackBuffer(data.byteLength);
      manager.sequence().copy(buffer, back, { byteLength: data.byteLength }).submitSync();
      for (const source of [buffer, back]) {
        const whole = new Uint8Array(data.byteLength);
        source.readInto(whole);
        expectSameBytes(whole, data);
        const part = new Float64Array(3);
        source.readInto(part, 5);
        expectSameBytes(new Uint8Array(part.buffer), data.subarray(5, 29));
        const view = new DataView(new ArrayBuffer(7));
        source.readInto(view, 4092);
        expectSameBytes(new Uint8Array(view.buffer), data.subarray(4092));
        expect(() => source.readInto(new Uint8Array(8), 4092)).toThrow(RangeError);
      }
      buffer.destroy();
      back.destroy();
    });
  }
});

// Results read back often (a sampling block's draws and statistics) are copied by the device into
// host memory that the host then reads in place, without a staging copy of its own.
describe("readback buffers", () => {
  for (const [mode, manager] of Object.entries(managers)) {
    it(`${mode}: are host-visible, receive copies of device buffers and read them back exactly`, async () => {
      const data = randomBytes(300_001, 17);
      const src = manager.bufferFrom(data);
      const back = manager.readbackBuffer(data.byteLength + 8);
      expect(back.hostVisible).toBe(true);
      const sequence = manager.sequence().copy(src, back, { byteLength: data.byteLength, dstOffset: 8 });
      for (let round = 0; round < 3; round++) {
        src.write(randomBytes(16, round), 1000);
        const want = src.read();
        sequence.submitSync();
        expectSameBytes(new Uint8Array(back.read(data.byteLength, 8)), new Uint8Array(want));
        expectSameBytes(new Uint8Array(await back.readAsync(16, 1008)), new Uint8Array(want).subarray(1000, 1016));
      }
      // The host writes it in place too, and a copy out of it reaches the device.
      back.write(new Uint8Array([9, 8, 7, 6]), 0);
      const dst = manager.bufferFrom(new Uint8Array(4));
      manager.sequence().copy(back, dst, { byteLength: 4 }).submitSync();
      expectSameBytes(new Uint8Array(dst.read()), new Uint8Array([9, 8, 7, 6]));
      sequence.destroy();
      [src, back, dst].forEach((b) => b.destroy());
    });
  }
});

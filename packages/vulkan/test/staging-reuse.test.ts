// Staging memory reused across transfers (native/staging.hpp): a manager with forceStaging takes
// the path of device-local memory, where every read and write copies through host-visible staging
// memory on the queue. Reuse must never hand out staging memory that an asynchronous read still
// waits on, must grow past its first size, and must leave nothing alive once a manager's objects
// are gone; the allocation counts of the addon's test hooks show that it does reuse.
import { afterEach, describe, expect, it } from "vitest";
import { loadAddon, VulkanError, VulkanManager, type VulkanBuffer } from "../src/index.ts";
import { expectSameBytes, lavapipe, randomBytes } from "./helpers.ts";

const device = lavapipe();
const hooks = (() => {
  const load = loadAddon();
  if (!load.ok) throw new Error(load.reason);
  return load.addon.testHooks;
})();

afterEach(() => hooks.clear());

/** A forceStaging manager, destroyed (with `buffers`) after `body`. */
async function withStaging(body: (manager: VulkanManager) => Promise<void> | void): Promise<void> {
  const manager = new VulkanManager(device.index, { forceStaging: true });
  try {
    await body(manager);
  } finally {
    manager.destroy();
  }
}

/** Allocations made while `body` runs. */
async function allocationsOf(body: () => Promise<void> | void): Promise<{ stagingBuffers: number; commandBuffers: number }> {
  const before = hooks.allocations();
  await body();
  const after = hooks.allocations();
  return { stagingBuffers: after.stagingBuffers - before.stagingBuffers, commandBuffers: after.commandBuffers - before.commandBuffers };
}

/** A deterministic generator of integers in [0, n). */
function rng(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 2 ** 32) * n);
  };
}

/** A device buffer of `size` random bytes and its host model. */
function filled(manager: VulkanManager, size: number, seed: number): { buffer: VulkanBuffer; model: Uint8Array } {
  const model = randomBytes(size, seed);
  const buffer = manager.bufferFrom(model);
  expect(buffer.hostVisible).toBe(false);
  return { buffer, model };
}

describe("staging memory reuse", () => {
  it("reads and writes of one size allocate staging memory and a command buffer once, not each time", async () => {
    await withStaging(async (manager) => {
      const { buffer, model } = filled(manager, 64 * 4096, 1);
      const reads = await allocationsOf(async () => {
        for (let i = 0; i < 200; i++) {
          const offset = (i % 64) * 4096;
          const bytes = i % 2 === 0 ? buffer.read(4096, offset) : await buffer.readAsync(4096, offset);
          expectSameBytes(bytes, model.subarray(offset, offset + 4096));
        }
      });
      // At most the pool's first slot (bufferFrom's write may have made it already).
      expect(reads.stagingBuffers).toBeLessThanOrEqual(1);
      expect(reads.commandBuffers).toBeLessThanOrEqual(1);
      const writes = await allocationsOf(async () => {
        for (let i = 0; i < 200; i++) {
          const patch = randomBytes(4096, 100 + i);
          const offset = (i % 64) * 4096;
          if (i % 2 === 0) buffer.write(patch, offset);
          else await buffer.writeAsync(patch, offset);
          model.set(patch, offset);
        }
      });
      expect(writes).toEqual({ stagingBuffers: 0, commandBuffers: 0 });
      expectSameBytes(buffer.read(), model);
      buffer.destroy();
    });
  });

  it("keeps apart asynchronous reads in flight at once, more of them than the pool has slots, with sync reads between", async () => {
    await withStaging(async (manager) => {
      const size = 1 << 20;
      const { buffer, model } = filled(manager, size, 2);
      const next = rng(3);
      for (let round = 0; round < 20; round++) {
        // Up to 12 reads in flight, each of its own length and offset (so a shared staging buffer
        // would hand one read another's bytes), a synchronous read issued among them.
        const ranges = Array.from({ length: 1 + next(12) }, () => {
          const length = 1 + next(next(2) === 0 ? 300 : 70_000);
          return [length, next(size - length + 1)] as const;
        });
        const pending = ranges.map(([length, offset]) => buffer.readAsync(length, offset));
        const [syncLength, syncOffset] = [1 + next(5000), next(size - 5000)];
        expectSameBytes(buffer.read(syncLength, syncOffset), model.subarray(syncOffset, syncOffset + syncLength));
        const results = await Promise.all(pending);
        results.forEach((bytes, k) => {
          const [length, offset] = ranges[k]!;
          expectSameBytes(bytes, model.subarray(offset, offset + length));
        });
        // Then change the contents, so a stale staging buffer would show.
        const patchLength = 1 + next(100_000);
        const patchOffset = next(size - patchLength + 1);
        const patch = randomBytes(patchLength, 1000 + round);
        if (round % 2 === 0) buffer.write(patch, patchOffset);
        else await buffer.writeAsync(patch, patchOffset);
        model.set(patch, patchOffset);
      }
      expectSameBytes(buffer.read(), model);
      buffer.destroy();
    });
  });

  it("keeps apart asynchronous writes in flight at once, of many sizes and any byte offset", async () => {
    await withStaging(async (manager) => {
      const size = 300_001;
      const { buffer, model } = filled(manager, size, 4);
      const next = rng(5);
      for (let round = 0; round < 10; round++) {
        // Disjoint regions, so the outcome does not depend on the order the copies run in.
        const writes: Promise<void>[] = [];
        for (let start = next(97); start < size; ) {
          const length = Math.min(size - start, 1 + next(next(2) === 0 ? 50 : 40_000));
          const patch = randomBytes(length, round * 1000 + start);
          writes.push(buffer.writeAsync(patch, start));
          patch.fill(0); // the data was copied before writeAsync returned
          model.set(randomBytes(length, round * 1000 + start), start);
          start += length + next(13);
        }
        await Promise.all(writes);
        expectSameBytes(await buffer.readAsync(), model);
      }
      buffer.destroy();
    });
  });

  it("grows its staging memory past the first size, and takes one-off memory beyond what it keeps", async () => {
    await withStaging(async (manager) => {
      const size = 6 << 20;
      const { buffer, model } = filled(manager, size, 6);
      const check = async (length: number, offset: number) => {
        expectSameBytes(buffer.read(length, offset), model.subarray(offset, offset + length));
        expectSameBytes(await buffer.readAsync(length, offset), model.subarray(offset, offset + length));
      };
      await check(4096, 3);
      const live = hooks.live().buffers;
      // 1 MiB: the slot grows once, and stays grown.
      const growth = await allocationsOf(async () => {
        await check(1 << 20, 5);
        await check(4096, 7);
        await check(1 << 20, 11);
      });
      expect(growth.stagingBuffers).toBe(1);
      expect(hooks.live().buffers).toBe(live);
      // 5 MiB, above what a slot keeps: memory for that transfer alone, freed after it.
      const large = await allocationsOf(() => check(5 << 20, 13));
      expect(large.stagingBuffers).toBe(2);
      expect(hooks.live().buffers).toBe(live);
      await check(size, 0);
      await check(1, size - 1);
      buffer.destroy();
    });
  });

  it("keeps a bounded number of staging buffers however many transfers of however many sizes", async () => {
    await withStaging(async (manager) => {
      const size = 2 << 20;
      const { buffer, model } = filled(manager, size, 7);
      const live = hooks.live().buffers;
      const next = rng(8);
      for (let i = 0; i < 50; i++) {
        const ranges = Array.from({ length: 1 + next(6) }, () => {
          const length = 1 + next(size);
          return [length, next(size - length + 1)] as const;
        });
        const results = await Promise.all(ranges.map(([length, offset]) => buffer.readAsync(length, offset)));
        results.forEach((bytes, k) => expectSameBytes(bytes, model.subarray(ranges[k]![1], ranges[k]![1] + ranges[k]![0])));
      }
      // The pool's slots (four at most) beside the one device buffer.
      expect(hooks.live().buffers - live).toBeLessThanOrEqual(4);
      buffer.destroy();
    });
  });

  it("frees its staging memory and the device once the manager and its buffers are gone", async () => {
    const before = hooks.live();
    await withStaging(async (manager) => {
      const { buffer, model } = filled(manager, 100_000, 9);
      const reads = [buffer.readAsync(), buffer.readAsync(10, 5), buffer.readAsync(99_999, 1)];
      expectSameBytes(buffer.read(), model);
      await Promise.all(reads);
      expect(hooks.live().contexts).toBe(before.contexts + 1);
      buffer.destroy();
    });
    expect(hooks.live()).toEqual(before);
  });
});

describe("staging memory after a failure", () => {
  it("a failed staging allocation is a VulkanError, and later transfers of any size work", async () => {
    await withStaging(async (manager) => {
      // Written through one-off staging memory (above what a slot keeps), so the pool's first slot
      // is the 4 KiB read's.
      const { buffer, model } = filled(manager, 6 << 20, 10);
      expectSameBytes(buffer.read(4096), model.subarray(0, 4096));
      // The slot must grow for 1 MiB, and 5 MiB takes one-off memory: those allocations fail.
      for (const length of [1 << 20, 5 << 20]) {
        hooks.failCall("vkAllocateMemory", "VK_ERROR_OUT_OF_DEVICE_MEMORY");
        expect(() => buffer.read(length)).toThrow(VulkanError);
        hooks.failCall("vkAllocateMemory", "VK_ERROR_OUT_OF_DEVICE_MEMORY");
        await expect(buffer.readAsync(length)).rejects.toThrow(VulkanError);
        hooks.failCall("vkAllocateMemory", "VK_ERROR_OUT_OF_DEVICE_MEMORY");
        expect(() => buffer.write(new Uint8Array(length))).toThrow(VulkanError);
      }
      expectSameBytes(buffer.read(4096, 1), model.subarray(1, 4097));
      expectSameBytes(await buffer.readAsync(1 << 20, 2), model.subarray(2, 2 + (1 << 20)));
      expectSameBytes(await buffer.readAsync(5 << 20, 3), model.subarray(3, 3 + (5 << 20)));
      expectSameBytes(buffer.read(), model);
      buffer.destroy();
    });
  });

  it("a failed submission or wait gives the staging memory back: the next transfers reuse it and read the right bytes", async () => {
    await withStaging(async (manager) => {
      const { buffer, model } = filled(manager, 100_000, 11);
      expectSameBytes(buffer.read(4096), model.subarray(0, 4096));
      const after = await allocationsOf(async () => {
        hooks.failCall("vkQueueSubmit", "VK_ERROR_UNKNOWN");
        await expect(buffer.readAsync(4096, 8)).rejects.toThrow(/vkQueueSubmit failed: VK_ERROR_UNKNOWN/);
        hooks.failCall("vkWaitForFences", "VK_ERROR_UNKNOWN");
        await expect(buffer.readAsync(4096, 9)).rejects.toThrow(/vkWaitForFences failed: VK_ERROR_UNKNOWN/);
        hooks.failCall("vkQueueSubmit", "VK_ERROR_UNKNOWN");
        expect(() => buffer.write(new Uint8Array(10), 3)).toThrow(/vkQueueSubmit failed/);
        hooks.failCall("vkWaitForFences", "VK_ERROR_UNKNOWN");
        expect(() => buffer.read(4096, 10)).toThrow(/vkWaitForFences failed/);
        for (let i = 0; i < 20; i++) {
          expectSameBytes(await buffer.readAsync(4096, 100 + i), model.subarray(100 + i, 4196 + i));
          expectSameBytes(buffer.read(4096, 200 + i), model.subarray(200 + i, 4296 + i));
        }
      });
      expect(after).toEqual({ stagingBuffers: 0, commandBuffers: 0 });
      buffer.destroy();
    });
  });
});

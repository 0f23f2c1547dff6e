// Device faults on lavapipe, each a typed error and never a crash, with the process able to go on:
// out of device memory (a heap full with this manager's buffers, under the addon's test limit
// PPL_VULKAN_TEST_HEAP_LIMIT since lavapipe's heap is host memory that never runs out in a test;
// a buffer beyond the range one binding can reach, a real limit), a lost device (simulated through
// the addon's test hooks: lavapipe cannot lose its device on demand), and a shader that does not
// compile (the generated source saved, its file and line named).
import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { compileGlsl, DeviceMemoryError, loadAddon, ShaderCompileError, VulkanError, VulkanManager } from "../src/index.ts";
import { cacheDir, compile, lavapipe } from "./helpers.ts";

const device = lavapipe();
const hooks = (() => {
  const load = loadAddon();
  if (!load.ok) throw new Error(load.reason);
  return load.addon.testHooks;
})();

const ADD_ONE = `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(push_constant) uniform Push { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = y[i] + 1.0;
}`;

/** Adds one to 64 floats on `manager` and reads them back: the device still computes. */
async function addOne(manager: VulkanManager): Promise<number[]> {
  const algorithm = manager.algorithm(await compile(ADD_ONE), { buffers: 1, pushConstantSize: 4 });
  const y = manager.buffer(64 * 4);
  y.write(new Float32Array(64).fill(2));
  await manager.sequence().dispatch(algorithm, [y], 1, new Uint32Array([64])).submit();
  return Array.from(new Float32Array(y.read()));
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  throw new Error("expected a throw");
}

afterEach(() => {
  hooks.clear();
  delete process.env.PPL_VULKAN_TEST_HEAP_LIMIT;
});

describe("out of device memory", () => {
  it("refuses buffers past what the heap holds with this manager's own: a DeviceMemoryError naming the size, the limit and the use; freeing makes room", async () => {
    process.env.PPL_VULKAN_TEST_HEAP_LIMIT = String(1 << 20);
    const small = new VulkanManager(device.index);
    delete process.env.PPL_VULKAN_TEST_HEAP_LIMIT;
    try {
      const first = small.buffer(600 * 1024);
      const error = thrown(() => small.buffer(600 * 1024));
      expect(error).toBeInstanceOf(DeviceMemoryError);
      expect(error).toBeInstanceOf(VulkanError);
      const e = error as DeviceMemoryError;
      expect([e.call, e.result, e.requested, e.limit, e.inUse, e.limitName]).toEqual(["vkAllocateMemory", "VK_ERROR_OUT_OF_DEVICE_MEMORY", 614400, 1048576, 614400, "memory heap 0"]);
      expect(e.message.split("\n")).toHaveLength(1);
      expect(e.message).toMatch(/^vkAllocateMemory failed: VK_ERROR_OUT_OF_DEVICE_MEMORY: out of device memory: 614400 bytes \(600\.0 KiB\) do not fit in memory heap 0, which holds 1048576 bytes \(1\.0 MiB\) with 614400 bytes \(600\.0 KiB\) already in use by this manager; use smaller data or fewer chains, a device with more memory, or the CPU backend \(614400 bytes requested, .*PPL_VULKAN_TEST_HEAP_LIMIT.*; refused before calling Vulkan\)$/);
      first.destroy();
      const again = small.buffer(600 * 1024);
      again.destroy();
    } finally {
      small.destroy();
    }
    // A manager made without the limit has the device's whole heap, and computes.
    const whole = new VulkanManager(device.index);
    try {
      whole.buffer(4 << 20).destroy();
      expect(await addOne(whole)).toEqual(new Array(64).fill(3));
    } finally {
      whole.destroy();
    }
  });

  it("refuses a buffer larger than one binding can reach (maxStorageBufferRange) as a DeviceMemoryError at dispatch", async () => {
    const manager = new VulkanManager(device.index);
    try {
      const algorithm = manager.algorithm(await compile(ADD_ONE), { buffers: 1, pushConstantSize: 4 });
      const huge = manager.buffer(device.limits.maxStorageBufferRange + 4);
      const e = thrown(() => manager.sequence().dispatch(algorithm, [huge], 1, new Uint32Array([64]))) as DeviceMemoryError;
      expect(e).toBeInstanceOf(DeviceMemoryError);
      expect([e.call, e.requested, e.limit, e.limitName]).toEqual(["vkUpdateDescriptorSets", device.limits.maxStorageBufferRange + 4, device.limits.maxStorageBufferRange, "maxStorageBufferRange"]);
      expect(e.message).toContain(`a buffer of ${device.limits.maxStorageBufferRange + 4} bytes`);
      huge.destroy();
      expect(await addOne(manager)).toEqual(new Array(64).fill(3));
    } finally {
      manager.destroy();
    }
  });
});

describe("lost device (simulated by the addon's test hook)", () => {
  it.each(["vkQueueSubmit", "vkWaitForFences"] as const)("%s reporting VK_ERROR_DEVICE_LOST: a VulkanError naming the call; the manager refuses further work; a new manager computes", async (call) => {
    const manager = new VulkanManager(device.index);
    try {
      const algorithm = manager.algorithm(await compile(ADD_ONE), { buffers: 1, pushConstantSize: 4 });
      const y = manager.buffer(64 * 4);
      const sequence = manager.sequence().dispatch(algorithm, [y], 1, new Uint32Array([64]));
      hooks.failCall(call, "VK_ERROR_DEVICE_LOST");
      const error = await sequence.submit().then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(VulkanError);
      expect([(error as VulkanError).call, (error as VulkanError).result]).toEqual([call, "VK_ERROR_DEVICE_LOST"]);
      expect((error as Error).message).toMatch(new RegExp(`^${call} failed: VK_ERROR_DEVICE_LOST`));
      // Lost stays lost: new work is refused before it reaches the driver, synchronously and asynchronously.
      for (const attempt of [() => sequence.submitSync(), () => manager.buffer(16)]) {
        const again = thrown(attempt) as VulkanError;
        expect(again).toBeInstanceOf(VulkanError);
        expect(again.result).toBe("VK_ERROR_DEVICE_LOST");
        expect(again.message).toContain(`the device was lost earlier, at ${call}`);
      }
    } finally {
      manager.destroy();
    }
    const fresh = new VulkanManager(device.index);
    try {
      expect(await addOne(fresh)).toEqual(new Array(64).fill(3));
    } finally {
      fresh.destroy();
    }
  });

  it("a synchronous submission whose wait reports VK_ERROR_DEVICE_LOST throws a VulkanError naming vkWaitForFences", async () => {
    const manager = new VulkanManager(device.index);
    try {
      const algorithm = manager.algorithm(await compile(ADD_ONE), { buffers: 1, pushConstantSize: 4 });
      const y = manager.buffer(64 * 4);
      const sequence = manager.sequence().dispatch(algorithm, [y], 1, new Uint32Array([64]));
      sequence.submitSync();
      hooks.failCall("vkWaitForFences", "VK_ERROR_DEVICE_LOST");
      const e = thrown(() => sequence.submitSync()) as VulkanError;
      expect([e.name, e.call, e.result]).toEqual(["VulkanError", "vkWaitForFences", "VK_ERROR_DEVICE_LOST"]);
    } finally {
      manager.destroy();
    }
  });

  it("refuses to inject what a driver would not report", () => {
    expect(() => hooks.failCall("vkQueueSubmit", "VK_SUCCESS")).toThrow(RangeError);
    expect(() => hooks.failCall("vkQueueSubmit", "VK_ERROR_DEVICE_LOST", -1)).toThrow(RangeError);
  });
});

describe("a shader that does not compile", () => {
  it("names the saved source's file and the offending line, and quotes it", async () => {
    const lines = ["#version 450", "layout(local_size_x = 1) in;", ...Array.from({ length: 40 }, (_, i) => `// generated line ${i + 3}`), "void main() { float x = no_such_value * 2.0; }"];
    const source = lines.join("\n");
    const e = (await compileGlsl(source, { cacheDir }).then(() => undefined, (x: unknown) => x)) as ShaderCompileError;
    expect(e).toBeInstanceOf(ShaderCompileError);
    expect(e.line).toBe(43);
    expect(e.file).toMatch(/ppl-glsl-[^/]+\/kernel-[0-9a-f]{12}\.comp$/);
    expect(readFileSync(e.file, "utf8")).toBe(source);
    const first = e.message.split("\n")[0]!;
    expect(first).toBe(`GLSL compile error at ${e.file}:43: 'no_such_value' : undeclared identifier: \`void main() { float x = no_such_value * 2.0; }\``);
    expect(e.message).toContain(`${e.file}:43: error:`);
    expect(e.message).toContain("> 43 | void main() { float x = no_such_value * 2.0; }");
  });
});

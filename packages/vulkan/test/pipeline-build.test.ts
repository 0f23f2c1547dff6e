// VulkanManager.algorithmAsync: the driver builds pipelines on worker threads. Several at once
// compute what the synchronously built ones compute; a pipeline cannot be dispatched before it is
// built (a typed error, not a crash); one destroyed while it builds releases everything once done.
import { describe, expect, it } from "vitest";
import { loadAddon, VulkanManager, VulkanError } from "../src/index.ts";
import { compile, lavapipe, randomFloats } from "./helpers.ts";

const device = lavapipe();

const AFFINE = (a: number, b: number) => `#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < x.length()) y[i] = x[i] * ${a.toFixed(1)} + ${b.toFixed(1)};
}`;

describe("pipelines built off the main thread (algorithmAsync)", () => {
  it("eight built at once compute what the synchronously built ones compute", async () => {
    const manager = new VulkanManager(device.index);
    try {
      const n = 1000;
      const x = randomFloats(n, 3);
      const input = manager.bufferFrom(x);
      const spirv = await Promise.all(Array.from({ length: 8 }, (_, k) => compile(AFFINE(k + 1, k))));
      const asynchronous = await Promise.all(spirv.map((s) => manager.algorithmAsync(s, { buffers: 2 })));
      const synchronous = spirv.map((s) => manager.algorithm(s, { buffers: 2 }));
      expect(asynchronous.map((a) => a.localSize)).toEqual(synchronous.map((a) => a.localSize));
      const run = (algorithm: (typeof synchronous)[number]) => {
        const out = manager.buffer(4 * n);
        manager.sequence().dispatch(algorithm, [input, out], Math.ceil(n / 64)).submitSync();
        const y = new Float32Array(out.read());
        out.destroy();
        return y;
      };
      for (let k = 0; k < 8; k++) {
        const y = run(asynchronous[k]!);
        expect(y).toEqual(run(synchronous[k]!));
        expect(y[5]).toBe(Math.fround(Math.fround(x[5]! * (k + 1)) + k));
      }
      [...asynchronous, ...synchronous].forEach((a) => a.destroy());
      input.destroy();
    } finally {
      manager.destroy();
    }
  });

  it("a pipeline still building cannot be dispatched; destroyed while building, it is released once built", async () => {
    const addon = loadAddon();
    if (!addon.ok) throw new Error(addon.reason);
    const manager = new VulkanManager(device.index);
    const spirv = await compile(AFFINE(2, 1));
    const buffers = [manager.buffer(256), manager.buffer(256)];
    // The native object straight away, before its build has finished.
    const handle = new addon.addon.Algorithm(manager.handle, spirv, 2, undefined, 0, true);
    const building = handle.build();
    const sequence = manager.sequence();
    expect(() => sequence.handle.dispatch(handle, buffers.map((b) => b.handle), 1, 1, 1)).toThrow(/not built yet/);
    expect(() => handle.build()).toThrow(/already being built/);
    handle.destroy();
    await building;
    sequence.destroy();
    buffers.forEach((b) => b.destroy());
    manager.destroy();
    expect(addon.addon.testHooks.live()).toEqual({ contexts: 0, buffers: 0 });
  });

  it("a refused pipeline rejects with a VulkanError and leaves the manager usable", async () => {
    const manager = new VulkanManager(device.index);
    try {
      // Two buffers declared, one bound: the addon refuses it before the driver sees it.
      await expect(manager.algorithmAsync(await compile(AFFINE(1, 0)), { buffers: 1 })).rejects.toThrow(/binding 1/);
      const ok = await manager.algorithmAsync(await compile(AFFINE(1, 0)), { buffers: 2 });
      expect(ok.localSize).toEqual([64, 1, 1]);
      ok.destroy();
    } finally {
      manager.destroy();
    }
    expect(VulkanError).toBeDefined();
  });
});

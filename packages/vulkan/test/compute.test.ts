import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { specFloat32, VulkanManager, type VulkanBuffer } from "../src/index.ts";
import { compile, expectSameBytes, lavapipe, randomFloats } from "./helpers.ts";

const device = lavapipe();
const managers = {
  direct: new VulkanManager(device.index),
  staging: new VulkanManager(device.index, { forceStaging: true }),
};
afterAll(() => {
  managers.direct.destroy();
  managers.staging.destroy();
});

const SCALE = `#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer In { float x[]; };
layout(std430, binding = 1) writeonly buffer Out { float y[]; };
layout(push_constant) uniform Push { uint n; float factor; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = x[i] * factor;
}`;

const ADD = `#version 450
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer A { float a[]; };
layout(std430, binding = 1) readonly buffer B { float b[]; };
layout(std430, binding = 2) writeonly buffer Y { float y[]; };
layout(push_constant) uniform Push { uint n; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = a[i] + b[i];
}`;

function push(n: number, factor?: number): ArrayBuffer {
  const bytes = new ArrayBuffer(factor === undefined ? 4 : 8);
  const view = new DataView(bytes);
  view.setUint32(0, n, true);
  if (factor !== undefined) view.setFloat32(4, factor, true);
  return bytes;
}

function floats(buffer: VulkanBuffer): Float32Array {
  return new Float32Array(buffer.read());
}

for (const [mode, manager] of Object.entries(managers)) {
  describe(`compute, ${mode} path`, () => {
    it("computes y = a*2 + b over 1e6 floats in one sequence of dispatches and copies, exactly, and re-submits", async () => {
      const n = 1_000_000;
      const groups = Math.ceil(n / 256);
      const scale = manager.algorithm(await compile(SCALE), { buffers: 2, pushConstantSize: 8 });
      const add = manager.algorithm(await compile(ADD), { buffers: 3, pushConstantSize: 4 });
      expect(scale.localSize).toEqual([256, 1, 1]);
      let a = randomFloats(n, 1);
      const b = randomFloats(n, 2);
      const bufA = manager.bufferFrom(a);
      const bufB = manager.bufferFrom(b);
      const twice = manager.buffer(n * 4);
      const y = manager.buffer(n * 4);
      const copyOfY = manager.buffer(n * 4);
      const scratch = manager.buffer(n * 4);

      // a*2 in two dependent steps (a*0.5, then *4: exact in f32), then + b, then a copy:
      // each command reads what the one before wrote, so a missing barrier shows.
      const sequence = manager
        .sequence()
        .dispatch(scale, [bufA, scratch], groups, push(n, 0.5))
        .dispatch(scale, [scratch, twice], [groups, 1, 1], push(n, 4))
        .dispatch(add, [twice, bufB, y], groups, push(n))
        .copy(y, copyOfY);
      expect(sequence.commandCount).toBe(4);

      const expected = (aa: Float32Array) => {
        const out = new Float32Array(n);
        for (let i = 0; i < n; i++) out[i] = Math.fround(Math.fround(Math.fround(aa[i]! * 0.5) * 4) + b[i]!);
        return out;
      };
      await sequence.submit();
      expectSameBytes(floats(y), expected(a));
      expectSameBytes(floats(copyOfY), expected(a));

      // Same recording, new input.
      a = randomFloats(n, 3);
      bufA.write(a);
      sequence.submitSync();
      expectSameBytes(floats(copyOfY), expected(a));

      for (const buffer of [bufA, bufB, twice, y, copyOfY, scratch]) buffer.destroy();
      sequence.destroy();
      scale.destroy();
      add.destroy();
    });

    it("copies with offsets inside a sequence", () => {
      const src = manager.bufferFrom(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]));
      const dst = manager.bufferFrom(new Uint8Array(9));
      manager.sequence().copy(src, dst, { byteLength: 3, srcOffset: 5, dstOffset: 1 }).submitSync();
      expectSameBytes(dst.read(), new Uint8Array([0, 6, 7, 8, 0, 0, 0, 0, 0]));
      src.destroy();
      dst.destroy();
    });
  });
}

describe("compute features", () => {
  const manager = managers.direct;

  it("runs f64 shaders with f64 precision", async () => {
    expect(device.features.shaderFloat64).toBe(true);
    const spirv = await compile(`#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) readonly buffer X { double x[]; };
layout(std430, binding = 1) writeonly buffer Y { double y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < x.length()) y[i] = x[i] * x[i];
}`);
    const n = 1000;
    const x = new Float64Array(n);
    for (let i = 0; i < n; i++) x[i] = 1 + i * 2 ** -40; // not representable in f32
    const bx = manager.bufferFrom(x);
    const by = manager.buffer(n * 8);
    const square = manager.algorithm(spirv, { buffers: 2 });
    manager.sequence().dispatch(square, [bx, by], Math.ceil(n / 64)).submitSync();
    const y = new Float64Array(by.read());
    const expected = x.map((v) => v * v);
    expectSameBytes(y, expected);
    expect(y[1]).not.toBe(1); // an f32 computation would give exactly 1
  });

  it("applies specialization constants", async () => {
    const spirv = await compile(`#version 450
layout(local_size_x_id = 2) in;
layout(constant_id = 0) const uint MULTIPLIER = 1;
layout(constant_id = 1) const float SCALE = 1.0;
layout(std430, binding = 0) writeonly buffer Y { float y[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < y.length()) y[i] = float(i * MULTIPLIER) * SCALE;
}`);
    const n = 1000;
    const out = manager.buffer(n * 4);
    const run = (specConstants: readonly number[] | undefined, localSize: number) => {
      const algorithm = manager.algorithm(spirv, { buffers: 1, ...(specConstants ? { specConstants } : {}) });
      out.fillZero();
      manager.sequence().dispatch(algorithm, [out], Math.ceil(n / localSize)).submitSync();
      return floats(out);
    };
    const withDefaults = run(undefined, 1);
    const specialized = run([3, specFloat32(0.5), 64], 64);
    for (let i = 0; i < n; i++) {
      expect(withDefaults[i]).toBe(i);
      expect(specialized[i]).toBe(i * 1.5);
    }
    expect(() => manager.algorithm(spirv, { buffers: 1, specConstants: [-1] })).toThrow(RangeError);
  });

  it("binds 16 storage buffers in one algorithm", async () => {
    const inputs = 15;
    const declarations = Array.from(
      { length: inputs },
      (_, k) => `layout(std430, binding = ${k}) readonly buffer In${k} { float in${k}[]; };`,
    ).join("\n");
    const sum = Array.from({ length: inputs }, (_, k) => `in${k}[i] * ${k + 1}.0`).join(" + ");
    const spirv = await compile(`#version 450
layout(local_size_x = 64) in;
${declarations}
layout(std430, binding = ${inputs}) writeonly buffer Out { float result[]; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < result.length()) result[i] = ${sum};
}`);
    const n = 256;
    const data = Array.from({ length: inputs }, (_, k) => {
      const values = new Float32Array(n);
      for (let i = 0; i < n; i++) values[i] = (i % 7) + k; // small integers: the sum is exact
      return values;
    });
    const buffers = data.map((values) => manager.bufferFrom(values));
    const out = manager.buffer(n * 4);
    const algorithm = manager.algorithm(spirv, { buffers: inputs + 1 });
    manager.sequence().dispatch(algorithm, [...buffers, out], n / 64).submitSync();
    const result = floats(out);
    for (let i = 0; i < n; i++) {
      let expected = 0;
      for (let k = 0; k < inputs; k++) expected += data[k]![i]! * (k + 1);
      expect(result[i]).toBe(expected);
    }
    // Many dispatches of it in one sequence draw descriptor sets from several pools.
    const sequence = manager.sequence();
    for (let r = 0; r < 100; r++) sequence.dispatch(algorithm, [...buffers, out], n / 64);
    sequence.submitSync();
    expectSameBytes(out.read(), result);
  });

  it("keeps the event loop running while a long submission waits", async () => {
    const spirv = await compile(`#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Y { float y[]; };
layout(push_constant) uniform Push { uint iterations; };
void main() {
  uint i = gl_GlobalInvocationID.x;
  float v = y[i];
  for (uint k = 0; k < iterations; k++) v = v * 0.9999999 + 1e-7 * float(k & 7u);
  y[i] = v;
}`);
    const y = manager.bufferFrom(new Float32Array(64 * 64));
    const algorithm = manager.algorithm(spirv, { buffers: 1, pushConstantSize: 4 });
    const sequence = manager.sequence().dispatch(algorithm, [y], 64, new Uint32Array([400_000]));

    let ticks = 0;
    let done = false;
    const tick = () => {
      ticks++;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const started = performance.now();
    const submitted = sequence.submit();
    expect(sequence.running).toBe(true);
    expect(() => sequence.submitSync()).toThrow(/still running/);
    await submitted;
    done = true;
    const elapsed = performance.now() - started;
    expect(sequence.running).toBe(false);
    // The shader ran long enough to matter, and the loop kept turning meanwhile.
    expect(elapsed).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThan(10);
  });

  it("validates dispatch arguments before recording", async () => {
    const add = manager.algorithm(await compile(ADD), { buffers: 3, pushConstantSize: 4 });
    const a = manager.buffer(16);
    const sequence = manager.sequence();
    expect(() => sequence.dispatch(add, [a, a], 1, push(4))).toThrow(/takes 3 buffers, got 2/);
    expect(() => sequence.dispatch(add, [a, a, a], 1)).toThrow(/4 bytes of push constants, got 0/);
    expect(() => sequence.dispatch(add, [a, a, a], 1, new Uint8Array(8))).toThrow(RangeError);
    expect(() => sequence.dispatch(add, [a, a, a], 1e9, push(4))).toThrow(/maxComputeWorkGroupCount/);
    expect(() => sequence.dispatch(add, [a, a, a], -1, push(4))).toThrow(RangeError);
    expect(() => sequence.copy(a, a)).toThrow(/overlap/);
    expect(() => sequence.copy(a, a, { byteLength: 8, srcOffset: 12 })).toThrow(/past the end/);
    expect(sequence.commandCount).toBe(0);
    // A buffer too large for one storage binding is refused at dispatch.
    const huge = manager.buffer(device.limits.maxStorageBufferRange + 4);
    expect(() => sequence.dispatch(add, [a, a, huge], 1, push(4))).toThrow(/maxStorageBufferRange/);
    huge.destroy();
  });

  it("refuses SPIR-V that does not fit the algorithm", async () => {
    const spirv = await compile(ADD);
    expect(() => manager.algorithm(new Uint32Array([1, 2, 3, 4, 5, 6]), { buffers: 1 })).toThrow(/invalid SPIR-V/);
    expect(() => manager.algorithm(spirv.subarray(0, 3), { buffers: 3 })).toThrow(/invalid SPIR-V/);
    expect(() => manager.algorithm(spirv, { buffers: 2, pushConstantSize: 4 })).toThrow(/binding 2 but bufferCount is 2/);
    expect(() => manager.algorithm(spirv, { buffers: 3 })).toThrow(/push constants/);
    expect(() => manager.algorithm(spirv, { buffers: 3, pushConstantSize: 6 })).toThrow(RangeError);
    expect(() => manager.algorithm(spirv, { buffers: 3, pushConstantSize: 4096 })).toThrow(RangeError);
    expect(() => manager.algorithm(Array.from(spirv) as unknown as Uint32Array, { buffers: 3 })).toThrow(TypeError);
    const uniform = await compile(`#version 450
layout(local_size_x = 1) in;
layout(std140, binding = 0) uniform U { float u; };
layout(std430, binding = 1) buffer Y { float y[]; };
void main() { y[0] = u; }`);
    expect(() => manager.algorithm(uniform, { buffers: 2 })).toThrow(/not a single storage buffer/);
  });

  it("throws on use after destroy, also inside recorded sequences", async () => {
    const add = manager.algorithm(await compile(ADD), { buffers: 3, pushConstantSize: 4 });
    const a = manager.bufferFrom(new Float32Array([1, 2, 3, 4]));
    const b = manager.bufferFrom(new Float32Array([10, 20, 30, 40]));
    const y = manager.buffer(16);
    const sequence = manager.sequence().dispatch(add, [a, b, y], 1, push(4));
    sequence.submitSync();
    expect(Array.from(floats(y))).toEqual([11, 22, 33, 44]);

    b.destroy();
    expect(() => sequence.submitSync()).toThrow(/Buffer that was destroyed/);
    await expect(sequence.submit()).rejects.toThrow(/Buffer that was destroyed/);
    expect(() => manager.sequence().dispatch(add, [a, b, y], 1, push(4))).toThrow(/Buffer was destroyed/);

    add.destroy();
    expect(add.destroyed).toBe(true);
    expect(() => add.bufferCount).toThrow(/Algorithm was destroyed/);
    expect(() => manager.sequence().dispatch(add, [a, a, y], 1, push(4))).toThrow(/Algorithm was destroyed/);

    sequence.destroy();
    expect(() => sequence.submitSync()).toThrow(/Sequence was destroyed/);
    expect(() => sequence.copy(a, y)).toThrow(/Sequence was destroyed/);

    // Submitted sequences cannot be extended.
    const once = manager.sequence().copy(a, y);
    once.submitSync();
    expect(() => once.copy(a, y)).toThrow(/already submitted/);
  });

  it("persists the pipeline cache to a file and reloads it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ppl-pipeline-cache-"));
    const path = join(dir, "pipelines.bin");
    const first = new VulkanManager(device.index, { pipelineCachePath: path });
    first.algorithm(await compile(ADD), { buffers: 3, pushConstantSize: 4 });
    first.destroy();
    expect(existsSync(path)).toBe(true);
    // At least the header (lavapipe caches nothing beyond it): length, version 1, vendor, device, UUID.
    expect(statSync(path).size).toBeGreaterThanOrEqual(32);
    const bytes = readFileSync(path);
    const header = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    expect(header.getUint32(4, true)).toBe(1);
    expect(header.getUint32(8, true)).toBe(device.vendorId);
    expect(header.getUint32(12, true)).toBe(device.deviceId);

    const second = new VulkanManager(device.index, { pipelineCachePath: path });
    second.algorithm(await compile(ADD), { buffers: 3, pushConstantSize: 4 });
    second.savePipelineCache();
    second.destroy();

    // A corrupt cache file is ignored, not trusted.
    writeFileSync(path, Buffer.from("definitely not a pipeline cache, but long enough to have a header"));
    const third = new VulkanManager(device.index, { pipelineCachePath: path });
    const add = third.algorithm(await compile(ADD), { buffers: 3, pushConstantSize: 4 });
    const a = third.bufferFrom(new Float32Array([1]));
    const y = third.buffer(4);
    third.sequence().dispatch(add, [a, a, y], 1, push(1)).submitSync();
    expect(floats(y)[0]).toBe(2);
    third.destroy();
  });
});

describe("pipelines built off the main thread (algorithmAsync)", () => {
  it("builds several at once, each dispatching as a synchronously built one does", async () => {
    const manager = managers.direct;
    const [spirvScale, spirvAdd] = await Promise.all([compile(SCALE), compile(ADD)]);
    const [scale, add, scale2] = await Promise.all([
      manager.algorithmAsync(spirvScale, { buffers: 2, pushConstantSize: 8 }),
      manager.algorithmAsync(spirvAdd, { buffers: 3, pushConstantSize: 4 }),
      manager.algorithmAsync(spirvScale, { buffers: 2, pushConstantSize: 8 }),
    ]);
    expect(scale.localSize).toEqual([256, 1, 1]);
    const a = manager.bufferFrom(new Float32Array([1, 2, 3]));
    const t = manager.buffer(12), y = manager.buffer(12);
    manager.sequence().dispatch(scale, [a, t], 1, push(3, 2)).dispatch(add, [t, a, y], 1, push(3)).dispatch(scale2, [y, t], 1, push(3, 0.5)).submitSync();
    expect(Array.from(floats(y))).toEqual([3, 6, 9]);
    expect(Array.from(floats(t))).toEqual([1.5, 3, 4.5]);
    for (const x of [scale, add, scale2, a, t, y]) x.destroy();
  });

  it("checks its arguments before building, as algorithm() does", async () => {
    const spirv = await compile(ADD);
    await expect(managers.direct.algorithmAsync(spirv, { buffers: 2, pushConstantSize: 4 })).rejects.toThrow(/binding 2 but bufferCount is 2/);
  });

  it("a sequence refuses a pipeline still being built, and a second build", () => {
    const addon = (managers.direct as unknown as { addon: { Algorithm: new (...args: unknown[]) => { build(): Promise<void>; built: boolean; destroy(): void } } }).addon;
    const handle = (managers.direct as unknown as { handle: unknown }).handle;
    return compile(ADD).then(async (spirv) => {
      const native = new addon.Algorithm(handle, spirv, 3, undefined, 4, true);
      expect(native.built).toBe(false);
      const building = native.build();
      expect(() => native.build()).toThrow(/built or being built already/);
      const s = managers.direct.sequence();
      const b = managers.direct.buffer(4);
      const wrapped = { handle: native } as never;
      expect(() => s.dispatch(wrapped, [b, b, b], 1, push(1))).toThrow(/not built yet/);
      await building;
      expect(native.built).toBe(true);
      s.dispatch(wrapped, [b, b, b], 1, push(1)).submitSync();
      native.destroy();
      b.destroy();
    });
  });
});

// Data stored in 16 bits (dataPrecision "f16"): in every execution shape, a run over f16 data
// equals, draw for draw, the f32 run over the data rounded to f16 beforehand (the kernels compute
// in f32 from the same values); the batched gradient likewise, value for value. The selection of
// the data to round, and the typed errors that say to drop the option.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity, sample, SamplerOptionError } from "@ppl/ppl";
import { data, sum } from "@ppl/tensor";
import { thrownBy } from "@ppl/tensor/testing";
import { compileGlsl, roundToFloat16, usableDevices, VulkanManager } from "@ppl/vulkan";
import logistic from "../../../examples/logistic_regression.ts";
import { batchedGradient } from "../src/batched-gradient.ts";
import { checkDataPrecision, halfDataBytes, halfDataLeaves, HALF_DATA_MIN, DataPrecisionError, roundedDataModel } from "../src/data-precision.ts";
import { nutsProgram } from "../src/nuts-program.ts";
import { prepareGpuNuts, type ExecutionShape } from "../src/index.ts";

// The bundled logistic regression with more rows: X (1500 × 3 = 4500 elements) is large enough to
// be stored in 16 bits, y (integers) and the scalars stay exact. Values of several binades, most
// not representable in 16 bits.
const N = 1500, K = 3;
const X = Array.from({ length: N }, (_, i) => Array.from({ length: K }, (_, k) => Math.sin(1 + i * 7.31 + k * 2.17) * (1 + k) + 1e-3 * Math.cos(i)));
const y = X.map((row) => (row[0]! - 0.5 * row[1]! + 0.3 * row[2]! > 0 ? 1 : 0));
const exactData = { N, K, X, y };
const roundedData = { N, K, X: X.map((row) => row.map(roundToFloat16)), y };
const exact = compileModel(logistic, exactData);
const rounded = compileModel(logistic, roundedData);
const device = usableDevices()[0];

describe("which data are stored in 16 bits", () => {
  it("float data of HALF_DATA_MIN elements or more; integer and small data stay exact; none under exact", () => {
    const half = halfDataLeaves([exact.logDensity], "f16", exact.dataBindings);
    expect([...half].map((n) => n.attrs.name)).toEqual(["X"]);
    expect(N * K).toBeGreaterThanOrEqual(HALF_DATA_MIN);
    expect(halfDataLeaves([exact.logDensity], "exact", exact.dataBindings).size).toBe(0);
    const small = compileModel(logistic, JSON.parse(readFileSync(new URL("../../../examples/logistic_regression.json", import.meta.url), "utf8")));
    expect(halfDataLeaves([small.logDensity], "f16", small.dataBindings).size).toBe(0);
  });

  it("integer data are never rounded: in 16 bits only where every value is exact there (|v| ≤ 2048)", () => {
    const g = data("g", [5000], "f64");
    const graph = [sum(g)];
    const ints = (max: number) => ({ g: { data: Float64Array.from({ length: 5000 }, (_, i) => i % (max + 1)) } });
    expect(halfDataLeaves(graph, "f16", ints(2048)).size).toBe(1);
    // 2049 is not a binary16 value: such indices would move.
    expect(roundToFloat16(2049)).not.toBe(2049);
    expect(halfDataLeaves(graph, "f16", ints(2049)).size).toBe(0);
    // Floats of any size are rounded; a leaf whose values are not at hand stays exact.
    expect(halfDataLeaves(graph, "f16", { g: { data: Float64Array.from({ length: 5000 }, (_, i) => i + 0.5) } }).size).toBe(1);
    expect(halfDataLeaves(graph, "f16", {}).size).toBe(0);
  });

  it("the host's model holds the rounded data, the same values the device reads", () => {
    const host = roundedDataModel(exact, "f16");
    expect(Array.from(host.dataBindings["X"]!.data)).toEqual(Array.from(rounded.dataBindings["X"]!.data));
    expect(host.dataBindings["y"]).toBe(exact.dataBindings["y"]);
    expect(Array.from(host.dataBindings["X"]!.data)).not.toEqual(Array.from(exact.dataBindings["X"]!.data));
    expect(roundedDataModel(exact, "exact")).toBe(exact);
  });

  it("a device without 16-bit storage: a typed error that says to drop the option", () => {
    // A listing without the key (an older addon) counts as lacking it.
    const without: { name: string; features: { storageBuffer16BitAccess?: boolean } } = { name: "old GPU", features: {} };
    expect(() => checkDataPrecision(without, "f16")).toThrow(DataPrecisionError);
    expect(() => checkDataPrecision(without, "f16")).toThrow(/device 'old GPU' lacks 16-bit storage .*drop --data-precision f16/);
    const error = thrownBy(() => checkDataPrecision({ ...without, features: { storageBuffer16BitAccess: false } }, "f16"), DataPrecisionError);
    expect(error).toBeInstanceOf(SamplerOptionError);
    expect(error.reason).toBe("no-16bit-storage");
    expect(() => checkDataPrecision(without, "exact")).not.toThrow();
  });

  it("a data value beyond ±65504: a typed error naming the data and the element", () => {
    expect(() => halfDataBytes("X", [1, -70000])).toThrow(/data 'X' holds -70000 \(element 1\), beyond the 16-bit float range ±65504: drop --data-precision f16/);
    expect(Array.from(halfDataBytes("X", [1, Infinity]))).toEqual([0x3c00, 0x7c00]);
  });
});

describe("the fused kernels read float16_t data", () => {
  it.each(["thread", "workgroup"] as const)("%s per chain: declared, widened and valid GLSL", async (shape) => {
    const p = nutsProgram(exact.logDensity, exact.q, { chains: 4, maxDepth: 10, dtype: "f32", shape, workgroup: 32, dataPrecision: "f16", dataBindings: exact.dataBindings });
    expect([...p.half].map((n) => n.attrs.name)).toEqual(["X"]);
    const i = p.data.indexOf([...p.half][0]!);
    expect(p.source.split("\n")[1]).toBe("#extension GL_EXT_shader_16bit_storage : require");
    expect(p.source).toContain(`readonly restrict buffer Data${i} { float16_t v[]; } bd${i};`);
    const uses = p.source.match(new RegExp(`bd${i}\\.v\\[`, "g"))!.length;
    expect(p.source.match(new RegExp(`float\\(bd${i}\\.v\\[`, "g"))!.length).toBe(uses);
    await compileGlsl(p.source, { optimize: false });
  });
});

describe.runIf(device !== undefined && device.features.storageBuffer16BitAccess === true)("f16 data on the device equal f32 over the rounded data", () => {
  it("the batched gradient: lp and gradient of every chain, value for value", async () => {
    const manager = new VulkanManager(device!.index);
    const C = 3, D = exact.q.size;
    const q = Float32Array.from({ length: C * D }, (_, i) => 0.3 * Math.sin(i + 0.5));
    const evaluate = async (model: typeof exact, precision: "exact" | "f16") => {
      const g = await batchedGradient(manager, model, C, "f32", undefined, precision);
      try {
        expect([...g.half].map((n) => n.attrs.name)).toEqual(precision === "f16" ? ["X"] : []);
        g.q.write(q);
        const s = manager.sequence();
        g.step.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
        s.submitSync();
        s.destroy();
        return { lp: Array.from(new Float32Array(g.lp.read(C * 4))), grad: Array.from(new Float32Array(g.grad.read(C * D * 4))) };
      } finally {
        g.dispose();
      }
    };
    try {
      const half = await evaluate(exact, "f16");
      expect(half).toEqual(await evaluate(rounded, "exact"));
      // The rounding is there to see: the exact data give another log density.
      expect(half.lp).not.toEqual((await evaluate(exact, "exact")).lp);
    } finally {
      manager.destroy();
    }
  });

  // The host's own evaluations (initialization) use the rounded data in both runs, so that the two
  // runs start from the same state; the kernels differ only in how they hold X.
  it.each(["thread", "workgroup", "device"] satisfies ExecutionShape[])("%s shape: the same draws and statistics", async (shape) => {
    const opts = { chains: 2, warmup: 0, draws: 3, seed: 7, stepSize: 0.1, maxDepth: 5 };
    const run = async (model: typeof exact, dataPrecision: "exact" | "f16") => {
      const gpu = await prepareGpuNuts(model, { chains: 2, maxDepth: 5, dtype: "f32", iterationsPerSubmit: 2, shape, workgroup: 32, dataPrecision });
      try {
        if (dataPrecision === "f16") expect(gpu.note).toMatch(/^data precision f16: X \[1500×3\] stored in 16 bits/);
        else expect(gpu.note).toBeUndefined();
        const res = sample(await modelDensity(roundedDataModel(exact, "f16")), { ...opts, transitionRunner: gpu });
        return { draws: res.draws.map((d) => Array.from(d)), leapfrogs: res.stats.map((s) => Array.from(s.nLeapfrog)) };
      } finally {
        gpu.dispose();
      }
    };
    expect(await run(exact, "f16")).toEqual(await run(rounded, "exact"));
  });
});

// Data given as one Float32Array keep a 32-bit copy (check-data.ts) that the device writes as it
// is, with no f64 copy made: the same kernels' results as for the same values given as numbers.
describe.runIf(device !== undefined)("data given as a Float32Array: the device reads its 32-bit copy", () => {
  const f32 = compileModel(logistic, { N, K, X: Float32Array.from(X.flat()), y });
  const numbers = compileModel(logistic, { N, K, X: X.map((row) => row.map(Math.fround)), y });
  it("the batched gradient equals that over the same values as numbers", async () => {
    expect(f32.dataBindings.X!.f32).toBeInstanceOf(Float32Array);
    const manager = new VulkanManager(device!.index);
    const C = 3, D = f32.q.size;
    const q = Float32Array.from({ length: C * D }, (_, i) => 0.3 * Math.sin(i + 0.5));
    const evaluate = async (model: typeof f32) => {
      const g = await batchedGradient(manager, model, C, "f32");
      try {
        g.q.write(q);
        const s = manager.sequence();
        g.step.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
        s.submitSync();
        s.destroy();
        return { lp: Array.from(new Float32Array(g.lp.read(C * 4))), grad: Array.from(new Float32Array(g.grad.read(C * D * 4))) };
      } finally {
        g.dispose();
      }
    };
    try {
      const fromF32 = await evaluate(f32);
      expect(fromF32).toEqual(await evaluate(numbers));
    } finally {
      manager.destroy();
    }
  });
  it.each(["thread", "device"] satisfies ExecutionShape[])("%s shape: the same draws", async (shape) => {
    const opts = { chains: 2, warmup: 0, draws: 3, seed: 7, stepSize: 0.1, maxDepth: 5 };
    const run = async (model: typeof f32) => {
      const gpu = await prepareGpuNuts(model, { chains: 2, maxDepth: 5, dtype: "f32", iterationsPerSubmit: 2, shape, workgroup: 32 });
      try {
        const res = sample(await modelDensity(numbers), { ...opts, transitionRunner: gpu });
        return res.draws.map((d) => Array.from(d));
      } finally {
        gpu.dispose();
      }
    };
    expect(await run(f32)).toEqual(await run(numbers));
  });
});

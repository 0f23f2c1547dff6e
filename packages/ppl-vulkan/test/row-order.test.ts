// The batched gradient binds a hierarchical model's rows sorted by group (row-order.ts): the host
// permutation keeps every row whole, and on the device the gradient over shuffled rows is the one
// over the same rows given in group order, value for value, and the CPU's to f32 rounding.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compileModel, modelDensity } from "@ppl/ppl";
import { REFERENCE_LIMITS } from "@ppl/vulkan/internals";
import { usableDevices, VulkanManager } from "@ppl/vulkan";
import hierarchical from "../../../examples/hierarchical.ts";
import logistic from "../../../examples/logistic_regression.ts";
import { batchedGradient, batchedGradientPlan } from "../src/batched-gradient.ts";
import { rowsInIndexOrder, stableOrder } from "../src/row-order.ts";

const example = JSON.parse(readFileSync(new URL("../../../examples/hierarchical.json", import.meta.url), "utf8")) as {
  N: number; G: number; group: number[]; x: number[]; y: number[];
};
// The example's rows in a shuffled order (its groups cycle 1…8; shuffled, no run is one group).
const order = Array.from({ length: example.N }, (_, i) => (i * 37 + 11) % example.N);
const shuffled = { ...example, group: order.map((i) => example.group[i]!), x: order.map((i) => example.x[i]!), y: order.map((i) => example.y[i]!) };
// The same rows as a user might give them: sorted by group, ties in their shuffled order.
const byGroup = shuffled.group.map((_, i) => i).sort((a, b) => shuffled.group[a]! - shuffled.group[b]! || a - b);
const sorted = { ...example, group: byGroup.map((i) => shuffled.group[i]!), x: byGroup.map((i) => shuffled.x[i]!), y: byGroup.map((i) => shuffled.y[i]!) };
const device = usableDevices()[0];

describe("rows in index order", () => {
  it("sorts the rows by group, stably, moving every row leaf alike and nothing else", () => {
    const model = compileModel(hierarchical, shuffled);
    const plan = batchedGradientPlan(model, 2, "f32", REFERENCE_LIMITS.h200);
    const data = rowsInIndexOrder(plan.outputs, model.dataBindings);
    for (const name of ["group", "x", "y"]) expect(Array.from(data[name]!.data)).toEqual(sorted[name as "group" | "x" | "y"]);
    for (const name of ["N", "G"]) expect(data[name]).toBe(model.dataBindings[name]);
    // The plan binds those data, and its scatter reads the rows in place (no sorted order between).
    expect(plan.data).toEqual(data);
    const scatter = plan.kernels.find((k) => k.source.includes("segment sums"))!;
    expect(scatter.source).toMatch(/int p\w* = s\w*;/);
  });

  it("leaves data in group order, and data whose order matters to no gather, as they are", () => {
    const model = compileModel(hierarchical, sorted);
    expect(rowsInIndexOrder(batchedGradientPlan(model, 2, "f32", REFERENCE_LIMITS.h200).outputs, model.dataBindings)).toBe(model.dataBindings);
    const lr = compileModel(logistic, JSON.parse(readFileSync(new URL("../../../examples/logistic_regression.json", import.meta.url), "utf8")));
    expect(rowsInIndexOrder(batchedGradientPlan(lr, 2, "f32", REFERENCE_LIMITS.h200).outputs, lr.dataBindings)).toBe(lr.dataBindings);
  });
});

describe("stableOrder", () => {
  it("sorts positions by key, ties in position order, for integer keys (counting) and any others (property)", () => {
    const keys = fc.oneof(
      fc.array(fc.integer({ min: -5, max: 40 }), { maxLength: 60 }),
      fc.array(fc.integer({ min: -1e9, max: 1e9 }), { maxLength: 30 }),
      fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { maxLength: 30 }),
    );
    fc.assert(
      fc.property(keys, (key) => {
        const want = key.map((_, i) => i).sort((a, b) => key[a]! - key[b]! || a - b);
        expect(Array.from(stableOrder(key))).toEqual(want);
      }),
      { numRuns: 300, seed: 5 },
    );
  });
});

describe.runIf(device !== undefined)("the batched gradient over shuffled rows", () => {
  it("equals that over the rows in group order, value for value, and the CPU's to rounding", async () => {
    const C = 3;
    const models = [compileModel(hierarchical, shuffled), compileModel(hierarchical, sorted)];
    const D = models[0]!.q.size;
    const q = Float64Array.from({ length: C * D }, (_, i) => 0.4 * Math.sin(1.7 * i + 0.3));
    const manager = new VulkanManager(device!.index);
    const evaluate = async (model: (typeof models)[number]) => {
      const g = await batchedGradient(manager, model, C, "f32");
      try {
        g.q.write(Float32Array.from(q));
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
      const got = await evaluate(models[0]!);
      expect(got).toEqual(await evaluate(models[1]!));
      // The CPU over the shuffled rows, in f64 (f32 sums of 120 rows: relative error well under 1e-5).
      const cpu = await modelDensity(models[0]!);
      const q32 = Float64Array.from(Float32Array.from(q));
      const lp = new Float64Array(C), grad = new Float64Array(C * D);
      cpu.logpGrad(q32, lp, grad);
      got.lp.forEach((v, c) => expect(Math.abs(v - lp[c]!)).toBeLessThan(1e-5 * (1 + Math.abs(lp[c]!))));
      const scale = Math.max(...Array.from(grad, Math.abs));
      got.grad.forEach((v, k) => expect(Math.abs(v - grad[k]!)).toBeLessThan(1e-5 * scale));
    } finally {
      manager.destroy();
    }
  });
});

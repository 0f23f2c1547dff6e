// Storage buffers per shader (binding-budget.ts): a kernel whose inline producers read more
// stored nodes than the device binds (lavapipe: 32) has its inputs narrowed before rendering —
// a wide concat becomes a tree of stored concats, a long inline chain is cut into kernels — and
// the program computes the same values; a kernel nothing can narrow is a GraphError, not the
// driver's refusal.
import { describe, expect, it } from "vitest";
import { add, concat, data, exp, GraphError, interpret, mul, scan, stack, sum, type Node } from "@ppl/tensor";
import { compileModel, gradientGraph } from "../../ppl/src/index.ts";
import lotkaVolterra from "../../../examples/posteriordb/hudson_lynx_hare-lotka_volterra.ts";
import { vulkanBackend } from "../src/backend.ts";
import { checkKernelBindings } from "../src/codegen/binding-budget.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { usableDevices } from "../src/devices.ts";

const { lavapipe, h200 } = REFERENCE_LIMITS;
const device = usableDevices()[0];

// 100 data vectors of 3: each its own buffer.
const parts = Array.from({ length: 100 }, (_, i) => data(`x${i}`, [3]));
const bindings = Object.fromEntries(parts.map((p, i) => [p.attrs.name!, Float64Array.from([i, -i / 7, i * i + 0.5])]));
// Concatenated as they are, through an inline map (a consumer reading the concat), and summed by a chain of adds.
const wide = concat(parts);
const scaled = mul(exp(stack(parts.map((p) => mul(p, 0.5)))), 2);
const chain = parts.reduce((s, p) => add(s, exp(p)));

const maxBindings = (outputs: readonly Node[], max: number) =>
  Math.max(...planProgram(outputs, { ...lavapipe, maxStorageBuffers: max }, () => "").kernels.map((k) => k.bindings.length));

describe("kernels within the device's storage buffers", () => {
  it("plans a concat of 100 stored vectors, its inline consumers and a chain of 100 adds within the limit", () => {
    for (const max of [32, 8, 5]) {
      expect(maxBindings([wide], max)).toBeLessThanOrEqual(max);
      expect(maxBindings([scaled], max)).toBeLessThanOrEqual(max);
      expect(maxBindings([chain], max)).toBeLessThanOrEqual(max);
      expect(maxBindings([wide, scaled, chain], max)).toBeLessThanOrEqual(max);
    }
    // Merged kernels stay within it too (merge-kernels.ts cuts their sets).
    const merged = planProgram([wide, scaled, chain], lavapipe, () => "", { merge: true });
    for (const k of merged.kernels) expect(k.bindings.length).toBeLessThanOrEqual(lavapipe.maxStorageBuffers);
  });

  it("keeps the graph, outputs included, when every kernel fits", () => {
    const few = parts.slice(0, 10);
    const out = mul(concat(few), 2);
    const plan = planProgram([out], lavapipe, () => "");
    expect(plan.outputs[0]).toBe(out);
    expect(plan.kernels).toHaveLength(1);
    expect(plan.kernels[0]!.bindings).toHaveLength(11);
  });

  it("rebuilds to the same values, concat order kept (reference interpreter of the rewritten graph)", () => {
    const plan = planProgram([wide, scaled, chain], lavapipe, () => "");
    expect(plan.outputs[0]).not.toBe(wide);
    const before = interpret([wide, scaled, chain], bindings);
    const after = interpret(plan.outputs, bindings);
    after.forEach((t, i) => {
      expect(t.shape).toEqual(before[i]!.shape);
      expect(Array.from(t.data)).toEqual(Array.from(before[i]!.data));
    });
    expect(Array.from(before[0]!.data.slice(0, 6))).toEqual([0, -0, 0.5, 1, -1 / 7, 1.5]);
  });

  it("raises a GraphError naming the kernel when nothing can narrow it (a scan reading 40 separate arrays)", () => {
    const xs = parts.slice(0, 40);
    const res = scan(([c], _ys, consts) => ({ carry: [consts.reduce((s, k) => add(s, k!), c!)] }), [data("c0", [3])], [], xs, { length: 2 });
    expect(() => planProgram([res.carry[0]!], lavapipe, () => "")).toThrow(GraphError);
    expect(() => planProgram([res.carry[0]!], lavapipe, () => "")).toThrow(/kernel for scan .* binds \d+ storage buffers, more than the device's 32/);
    expect(() => checkKernelBindings(planProgram([wide], h200, () => "").kernels, 2)).toThrow(GraphError);
  });

  it("plans the Lotka–Volterra gradient with 40 output times within lavapipe's 32 buffers", () => {
    const N = 40;
    const ts = Array.from({ length: N }, (_, i) => i + 1);
    // Planning reads only shapes: any positive observations do.
    const y = Array.from({ length: N }, (_, i) => [30 + (i % 7), 4 + (i % 5)]);
    const m = compileModel(lotkaVolterra, { N, ts, y_init: [30, 4], y });
    // One chain a gradient (with more, the solver's 100 attempts an interval pass llvmpipe's loop cap
    // in one thread, and each interval's scan runs as a chain of shorter ones: split-long-scans.ts).
    const graph = gradientGraph(m, { dtype: "f64", chains: 1 });
    const plan = planProgram([graph.lp, graph.grad], lavapipe, () => "", { merge: true });
    for (const k of plan.kernels) expect(k.bindings.length).toBeLessThanOrEqual(32);
    // The outputs' buffers exist (callers read lp and grad through plan.outputs).
    for (const o of plan.outputs) expect(plan.buffers).toContain(o);
  });

  it.runIf(device !== undefined)("computes on the device what the reference interpreter does", async () => {
    const backend = await vulkanBackend({ limits: { maxStorageBuffers: 8 } });
    const outputs = [wide, scaled, chain, sum(wide, [0])];
    const exe = await backend.compile(outputs);
    const got = await exe.run(bindings);
    const want = interpret(outputs, bindings);
    // Copies are exact; exp and the sums in the device's own rounding.
    expect(Array.from(got[0]!.data)).toEqual(Array.from(want[0]!.data));
    got.slice(1).forEach((t, i) => {
      expect(t.shape).toEqual(want[i + 1]!.shape);
      t.data.forEach((v, j) => expect(v).toBeCloseTo(want[i + 1]!.data[j]!, 9));
    });
    exe.dispose?.();
    // And with the device's own limit (lavapipe: 32).
    const own = await (await vulkanBackend()).compile([wide]);
    expect(Array.from((await own.run(bindings))[0]!.data)).toEqual(Array.from(want[0]!.data));
    own.dispose?.();
  }, 120_000);
});

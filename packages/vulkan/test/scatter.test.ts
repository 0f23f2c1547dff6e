import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, constant, data, gather, grad, IndexRangeError, interpret, mul, param, scan, scatterAdd, sum, vmap, type Node, type TensorValue } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { planProgram, type KernelPlan } from "../src/codegen/program.ts";
import { segmentLanes } from "../src/codegen/scatter-lanes.ts";
import { knownSegments, segmentLayout } from "../src/codegen/scatter-segments.ts";
import { isScratch } from "../src/codegen/shader.ts";
import { usableDevices } from "../src/devices.ts";

// scatter_add (the gradient of every gather) as segmented sums: each output element loops over
// its own entries only, in index order. The layout is computed on the host for constant indices
// and by a stable radix sort on the device for indices known only at run time.
const device = usableDevices()[0];

// Fixed limits and no prelude, so planned kernels and their source are the same on every machine.
// (the H200 of REFERENCE_LIMITS, without subgroup arithmetic).
// One iteration a loop trip, so that a loop body is one iteration's code (strided-loop.test.ts covers several).
const GPU = { ...REFERENCE_LIMITS.h200, subgroupArithmetic: false, loopIterationsInFlight: 1 };
const plan = (outs: Node[]) => planProgram(outs, GPU, () => "// (prelude)");
const scatterKernel = (kernels: readonly KernelPlan[]) => kernels.find((k) => k.node.op === "scatter_add")!;

/** Deterministic pseudo-random integers in [0, n). */
function ints(count: number, n: number, seed = 1): number[] {
  let s = seed >>> 0;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 2 ** 32) * n);
  });
}

/** Deterministic values in [-3, 3), exact in f32. */
function reals(count: number, seed = 2): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround((s / 2 ** 32) * 6 - 3);
  });
}

const value = (dtype: TensorValue["dtype"], shape: number[], values: ArrayLike<number>): TensorValue => ({ dtype, shape, data: Float64Array.from(values) });

describe("segment layout on the host", () => {
  it("sorts positions by target, keeping their order within a target; empty targets get empty segments", () => {
    const l = segmentLayout([2, 0, 2, 4, 0, 2], 6);
    expect(Array.from(l.order)).toEqual([1, 4, 0, 2, 5, 3]);
    expect(Array.from(l.offsets)).toEqual([0, 2, 2, 5, 5, 6, 6]);
    expect(l.longest).toBe(3);
  });

  it("is a stable sort for any indices (property)", () => {
    const arb = fc.integer({ min: 1, max: 20 }).chain((targets) => fc.tuple(fc.constant(targets), fc.array(fc.integer({ min: 0, max: targets - 1 }), { maxLength: 60 })));
    fc.assert(
      fc.property(arb, ([targets, idx]) => {
        const l = segmentLayout(idx, targets);
        for (let j = 0; j < targets; j++) {
          const want = idx.flatMap((t, p) => (t === j ? [p] : []));
          expect(Array.from(l.order.subarray(l.offsets[j]!, l.offsets[j + 1]!))).toEqual(want);
        }
        expect(l.offsets[targets]).toBe(idx.length);
      }),
    );
  });
});

describe("scatter_add kernels: planning", () => {
  const N = 5000;
  const J = 7;
  const u = param("u", [N], "f32");
  const unsorted = ints(N, J);

  it("with constant indices, 5000 entries into 7 targets: each output loops over its own segment of the layout buffers", () => {
    const s = scatterAdd(u, constant(unsorted, [N], "i32"), 0, J);
    const p = plan([s]);
    const layout = knownSegments(s)!;
    expect(p.buffers).toContain(layout.offsets);
    expect(p.buffers).toContain(layout.order);
    const k = scatterKernel(p.kernels);
    expect(k.bindings).toContain(layout.offsets);
    expect(k.bindings).toContain(layout.order);
    expect(k.source).not.toMatch(/<\s*5000\b/); // no loop over all entries
    expect(k.source).toMatch(/for \(int (s\d+) = lo\d+; \1 < hi\d+; \1\+\+\)/);
    expect(k.units).toBe(J);
  });

  it("with index data, 5000 entries into 7 targets: the layout is sorted on the device first, then 32 threads an output walk its segment", () => {
    const idx = data("idx", [N], "i32");
    const s = scatterAdd(u, idx, 0, J);
    const p = plan([s]);
    // One radix pass (count, scan, place) and the offsets search, all planned for the index.
    expect(p.kernels.map((k) => k.node)).toEqual([idx, idx, idx, idx, s]);
    const k = scatterKernel(p.kernels);
    expect(k.source).not.toMatch(/<\s*5000\b/);
    // About 714 entries a target: thread j of an output sums entries j, j + 32, …, then a fixed tree adds the 32 sums.
    expect(k.source).toContain("segment sums, 32 threads an output");
    expect(k.source).toMatch(/for \(int s = lo \+ j; s < hi; s \+= 32\)/);
    expect(k.units).toBe(J * 32);
    expect(k.bindings.filter(isScratch).map((b) => b.label)).toEqual(["segment offsets of 7 targets", "segment sort: positions after even passes"]);
    // No layout kernel walks all N entries in one thread either: each walks a block.
    for (const lk of p.kernels.slice(0, 3)) expect(lk.source).not.toMatch(/<\s*5000\b/);
  });

  it("shares an output among threads only when segments are long on average: 2.5 entries a target keep one thread", () => {
    expect(segmentLanes(5000, 7, 256)).toBe(32);
    expect(segmentLanes(100_000, 2000, 256)).toBe(8); // the hier anchor: 50 entries a group
    expect(segmentLanes(3000, 300, 256)).toBe(1);
    expect(segmentLanes(50, 0, 256)).toBe(1);
    expect(segmentLanes(5000, 7, 8)).toBe(8); // never more than a workgroup
    const k = scatterKernel(plan([scatterAdd(u, data("idx", [N], "i32"), 0, 2000)]).kernels);
    expect(k.source).toMatch(/for \(int (s\d+) = lo\d+; \1 < hi\d+; \1\+\+\)/);
  });

  it("sorts targets past 255 in two digit passes, and builds one index's layout once for all its scatters", () => {
    const idx = data("idx", [N], "i32");
    const v = param("v", [3, N], "f32");
    const p = plan([scatterAdd(u, idx, 0, 1000), scatterAdd(v, idx, 1, 1000)]);
    expect(p.kernels.filter((k) => k.node === idx).length).toBe(2 * 3 + 1);
    expect(p.kernels.filter((k) => k.node.op === "scatter_add").length).toBe(2);
  });

  it("rejects a constant index out of range with an IndexRangeError naming the entry and the range", () => {
    const bad = constant([0, 7, 1], [3], "i32");
    expect(() => plan([scatterAdd(param("w", [3]), bad, 0, 5)])).toThrow(IndexRangeError);
    expect(() => plan([scatterAdd(param("w", [3]), bad, 0, 5)])).toThrow(/scatter_add: index 7 is out of range \[0, 5\) \(entry 1 of the constant indices\)/);
    expect(() => plan([gather(param("x", [5]), bad, 0)])).toThrow(/gather: index 7 is out of range \[0, 5\) \(entry 1/);
  });

  it("rejects a constant layout whose longest segment exceeds the device's loop budget, rather than summing it short", () => {
    const s = scatterAdd(param("w", [200]), constant(ints(200, 2).map((t) => t * 3), [200], "i32"), 0, 4);
    expect(() => planProgram([s], { ...GPU, maxLoopIterations: 100 }, () => "")).toThrow(/one target receives \d+ entries, more than the 100 loop iterations/);
    expect(() => planProgram([s], GPU, () => "")).not.toThrow();
  });

  it("golden: the segmented scatter kernel of a batched row scatter, with a host layout and with a device layout", async () => {
    const rows = param("rows", [2, 12, 3], "f32"); // 2 chains × 12 entries × rows of 3
    const idx = [4, 0, 2, 4, 4, 1, 0, 2, 4, 0, 1, 4]; // target 3 stays empty
    const known = plan([scatterAdd(rows, constant(idx, [12], "i32"), 1, 5)]);
    await expect(scatterKernel(known.kernels).source).toMatchFileSnapshot("./__snapshots__/scatter-segmented.glsl");
    const sorted = plan([scatterAdd(rows, data("idx", [12], "i32"), 1, 5)]);
    await expect(sorted.kernels.map((k) => k.source).join("// ----\n")).toMatchFileSnapshot("./__snapshots__/scatter-device-layout.glsl");
  });
});

describe.runIf(device !== undefined)("scatter_add on the device", async () => {
  const backend = await vulkanBackend();
  const dtype = device?.features.shaderFloat64 ? "f64" : "f32";
  const run = async (outs: Node[], bindings: Record<string, TensorValue>) => {
    const exe = await backend.compile(outs);
    try {
      return await exe.run(bindings);
    } finally {
      exe.dispose?.();
    }
  };

  // 3000 entries: several blocks of the device sort; 300 targets: two digit passes; odd targets stay empty.
  const N = 3000, J = 300, C = 2;
  const idxValues = ints(N, J / 2).map((t) => 2 * t);
  const bindings = { u: value(dtype, [C, N], reals(C * N)), idx: value("i32", [N], idxValues) };
  const u = data("u", [C, N], dtype);

  it(`sums each segment in index order: equal to the reference interpreter ${dtype === "f64" ? "bit for bit (f64)" : "(f32)"} and the same on every run`, async () => {
    for (const idx of [data("idx", [N], "i32"), constant(idxValues, [N], "i32")]) {
      const outs = [scatterAdd(u, idx, 1, J)];
      const want = interpret(outs, bindings)[0]!.data;
      const first = (await run(outs, bindings))[0]!.data;
      const again = (await run(outs, bindings))[0]!.data;
      expect(Buffer.from(again.buffer).equals(Buffer.from(first.buffer))).toBe(true);
      if (dtype === "f64") expect(Array.from(first)).toEqual(Array.from(want));
      else first.forEach((g, i) => expect(Math.abs(g - want[i]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!))));
      for (let j = 1; j < J; j += 2) expect(first[j]).toBe(0);
    }
  });

  it("long segments, several threads an output (index data): the reference's sums, empty and unsorted segments included, the same on every run", async () => {
    // 4000 entries into 64 targets, every fourth left empty, one target taking a quarter of them.
    const n = 4000, targets = 64;
    const idxs = ints(n, targets / 4, 11).map((t, e) => (e % 4 === 0 ? 5 : 4 * t + 1));
    const b = { u: value(dtype, [C, n], reals(C * n, 12)), idx: value("i32", [n], idxs) };
    const outs = [scatterAdd(data("u", [C, n], dtype), data("idx", [n], "i32"), 1, targets)];
    expect(scatterKernel(planProgram(outs, REFERENCE_LIMITS.lavapipe, () => "").kernels).source).toContain("threads an output");
    const want = interpret(outs, b)[0]!.data;
    const first = (await run(outs, b))[0]!.data;
    const again = (await run(outs, b))[0]!.data;
    expect(Buffer.from(again.buffer).equals(Buffer.from(first.buffer))).toBe(true);
    // A fixed order, not the serial one: within the rounding of a sum of |terms| ≤ 3.
    const eps = dtype === "f64" ? 2 ** -52 : 2 ** -23;
    first.forEach((g, i) => expect(Math.abs(g - want[i]!)).toBeLessThanOrEqual(2 * n * 3 * eps));
    for (let c = 0; c < C; c++) for (let j = 0; j < targets; j += 4) expect(first[c * targets + j]).toBe(0);
  });

  it("gathers table rows and scatters their gradient back, for 3 chains at once (vmap)", async () => {
    const rows = 40, k = 3, n = 500;
    const table = param("table", [rows, k], dtype);
    const w = data("w", [n, k], dtype);
    const idx = data("group", [n], "i32");
    const lp = sum(mul(gather(table, idx, 0), w));
    const [g] = grad(lp, [table]);
    const outs = vmap([lp, g!], new Map([[table, 3]]));
    const b = { table: value(dtype, [3, rows, k], reals(3 * rows * k, 5)), w: value(dtype, [n, k], reals(n * k, 6)), group: value("i32", [n], ints(n, rows, 7)) };
    const got = await run(outs, b);
    const want = interpret(outs, b);
    got.forEach((o, i) => o.data.forEach((v, e) => expect(Math.abs(v - want[i]!.data[e]!)).toBeLessThanOrEqual(1e-4 * (1 + Math.abs(want[i]!.data[e]!)))));
  });

  it("inside a scan body: constant indices use their layout, indices passed in are added in order by one thread", async () => {
    const xs = data("xs", [4, 6], dtype);
    const known = constant([2, 0, 2, 1, 0, 2], [6], "i32");
    const passed = data("p", [6], "i32");
    const { carry } = scan(([c], [x], [p]) => ({ carry: [add(add(c!, scatterAdd(x!, known, 0, 3)), scatterAdd(x!, p!, 0, 3))] }), [constant(0, [3], dtype)], [xs], [passed]);
    const b = { xs: value(dtype, [4, 6], reals(24, 9)), p: value("i32", [6], [1, 1, 0, 2, 2, 0]) };
    const got = await run([carry[0]!], b);
    const want = interpret([carry[0]!], b);
    got[0]!.data.forEach((v, e) => expect(Math.abs(v - want[0]!.data[e]!)).toBeLessThanOrEqual(1e-5 * (1 + Math.abs(want[0]!.data[e]!))));
  });

  it("rejects index data out of range when it is bound, with an IndexRangeError naming the data", async () => {
    const outs = [scatterAdd(data("v", [3], dtype), data("i", [3], "i32"), 0, 5)];
    await expect(run(outs, { v: value(dtype, [3], [1, 2, 3]), i: value("i32", [3], [0, 5, 1]) })).rejects.toThrow(IndexRangeError);
    await expect(run(outs, { v: value(dtype, [3], [1, 2, 3]), i: value("i32", [3], [0, -1, 1]) })).rejects.toThrow(/index -1 is out of range \[0, 5\) \(entry 1 of data 'i'\)/);
  });
});

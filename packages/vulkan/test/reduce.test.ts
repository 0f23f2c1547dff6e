import { describe, expect, it } from "vitest";
import { abs, add, data, exp, gt, interpret, logsumexp, max, min, mul, prod, sum, type Node } from "@ppl/tensor";
import { reduce, type ReduceOp } from "@ppl/tensor/internals";
import { checkConformanceCase, conformanceCases, type FloatDType } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { limitsOf } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { reducePartitions } from "../src/codegen/reduce/strategy.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { usableDevices } from "../src/devices.ts";

// Parallel (workgroup, split over several workgroups per output) reductions against the reference interpreter, on sizes that take
// the parallel path with lavapipe's limits, and with limits that force it on the conformance cases.
const device = usableDevices()[0];
const DTYPES: readonly FloatDType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];

/** Deterministic values in [lo, hi), rounded to f32 so both sides read the same inputs. */
function values(n: number, lo: number, hi: number, seed = 1): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround(lo + (s / 2 ** 32) * (hi - lo));
  });
}

/** |got − want| ≤ rel·scale elementwise (scale: Σ|terms| per output, or |want|); NaN and infinities must match exactly. */
function expectClose(got: ArrayLike<number>, want: ArrayLike<number>, rel: number, scale?: ArrayLike<number>): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!, w = want[i]!;
    if (!Number.isFinite(w)) {
      expect(Object.is(g, w) || (Number.isNaN(g) && Number.isNaN(w)), `element ${i}: got ${g}, want ${w}`).toBe(true);
      continue;
    }
    const allowed = rel * Math.max(Math.abs(w), scale ? scale[i]! : 0) + 1e-300;
    expect(Math.abs(g - w) <= allowed, `element ${i}: got ${g}, want ${w} (allowed ${allowed})`).toBe(true);
  }
}

const relOf = (dtype: FloatDType) => (dtype === "f32" ? 2e-5 : 1e-13);

describe.runIf(device !== undefined)("parallel reductions", async () => {
  const backend = await vulkanBackend();
  const limits = limitsOf(device!);

  it("splits few outputs of many elements over workgroups, merged in the same dispatch", () => {
    expect(reducePartitions(1, 1_000_000, limits)).toBeGreaterThan(1);
    expect(reducePartitions(4, 25_000, limits)).toBeGreaterThan(1);
    expect(reducePartitions(100_000, 10, limits)).toBe(0);
    const x = data("x", [4, 25_000], "f32");
    const plan = planProgram([sum(x, 1)], limits, kernelPrelude);
    expect(plan.kernels.length).toBe(1);
    // The partial states, and the count of each output's workgroups done (the last one merges).
    expect(plan.scratch.map((s) => s.dtype).sort()).toEqual(["f32", "i32"]);
    expect(plan.kernels[0]!.source).toContain("atomicAdd(");
  });

  it("on a GPU, a thousand outputs of a thousand terms get a workgroup each; outputs that fill the device keep a thread each", () => {
    const gpu = limitsOf({ type: "discrete", driver: "NVIDIA", limits: { maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [65535, 65535, 65535] }, features: { shaderFloat64: true } });
    expect(reducePartitions(1024, 1000, gpu)).toBe(1);
    expect(reducePartitions(1 << 20, 1000, gpu)).toBe(0);
    expect(reducePartitions(1024, 10, gpu)).toBe(0);
    // A CPU driver runs workgroups a core at a time: a thread per output stays the better loop there.
    const cpu = limitsOf({ type: "cpu", driver: "llvmpipe", limits: { maxComputeWorkGroupInvocations: 1024, maxComputeWorkGroupCount: [65535, 65535, 65535] }, features: { shaderFloat64: true } });
    expect(reducePartitions(1024, 1000, cpu)).toBe(0);
  });

  const ops: readonly ReduceOp[] = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_logsumexp"];
  // [shape, axes]: a scalar of 300k, chains × terms (contiguous and strided), two axes of three.
  const layouts: readonly [number[], number[]][] = [
    [[300_000], [0]],
    [[4, 25_000], [1]],
    [[25_000, 4], [0]],
    [[40, 3, 500], [0, 2]],
  ];
  for (const dtype of DTYPES) {
    for (const op of ops) {
      it(`${op} ${dtype} over several axis sets, with a fused producer`, async () => {
        for (const [shape, axes] of layouts) {
          const n = shape.reduce((a, b) => a * b, 1);
          const x = data("x", shape, dtype);
          // Products stay finite: factors near 1. Others: a producer fused into the loop.
          const term = op === "reduce_prod" ? add(mul(x, 1e-4), 1) : add(mul(x, 2), 0.5);
          const out = reduce(op, term, axes);
          const bindings = { x: values(n, -3, 3, n) };
          const exe = await backend.compile([out]);
          const [got] = await exe.run(bindings);
          exe.dispose?.();
          const [want] = interpret([out], bindings);
          const [scale] = op === "reduce_sum" ? interpret([sum(abs(term), axes)], bindings) : [undefined];
          // A product's rounding errors add up with the count (lavapipe's f32 products drift by ~1e-3 over 300k factors).
          const rel = op === "reduce_prod" ? (n * 2 ** (dtype === "f32" ? -24 : -53)) : op === "reduce_sum" ? relOf(dtype) * 8 : relOf(dtype);
          expectClose(got!.data, want!.data, rel, scale?.data);
        }
      });
    }

    it(`non-finite values ${dtype}: -inf, +inf and NaN rows`, async () => {
      const N = 20_000;
      const rows = 6;
      const v = values(rows * N, -5, 5, 3);
      v[0 * N + 17] = -Infinity; // one -inf among finite values
      for (let i = 0; i < N; i++) v[1 * N + i] = -Infinity; // all -inf
      v[2 * N + 12_345] = Infinity;
      v[3 * N + 9_999] = NaN;
      v[4 * N + 5] = Infinity;
      v[4 * N + 19_000] = NaN;
      v[5 * N + 19_999] = -Infinity;
      const x = data("x", [rows, N], dtype);
      const outs: Node[] = [logsumexp(x, 1), max(x, 1), min(x, 1), sum(x, 1)];
      const exe = await backend.compile(outs);
      const got = await exe.run({ x: v });
      exe.dispose?.();
      const want = interpret(outs, { x: v });
      const [scale] = interpret([sum(abs(x), 1)], { x: v });
      outs.forEach((_, j) => expectClose(got[j]!.data, want[j]!.data, relOf(dtype) * 8, j === 3 ? scale!.data : undefined));
    });
  }

  it("counts (sum of bools as i32) exactly", async () => {
    const x = data("x", [3, 100_000], "f32");
    const out = sum(gt(exp(x), 1), 1);
    const bindings = { x: values(300_000, -1, 1, 9) };
    const exe = await backend.compile([out]);
    const [got] = await exe.run(bindings);
    exe.dispose?.();
    expect(Array.from(got!.data)).toEqual(Array.from(interpret([out], bindings)[0]!.data));
  });

  it("merges every partial where a workgroup is smaller than a subgroup (4 threads, many partitions)", async () => {
    // The first subgroup merges the partials, each lane a stride of them: with 4 threads on a
    // device of wider subgroups only 4 lanes exist, and a stride of the subgroup's size would skip
    // the partials between them.
    const small = { parallelReduceMin: 1, busyGroups: 64, groupSize: 4 };
    const x = data("x", [2, 4000], "f32");
    const out = sum(x, 1);
    const source = planProgram([out], { ...limits, ...small }, kernelPrelude).kernels[0]!.source;
    expect(source).toMatch(/\(\d+ workgroups per output, the last merges their partials\)/);
    expect(Number(/\((\d+) workgroups per output/.exec(source)![1])).toBeGreaterThan(8);
    const bindings = { x: Float64Array.from({ length: 8000 }, (_, i) => (i % 7) + 1) };
    const exe = await (await vulkanBackend({ limits: small })).compile([out]);
    const [got] = await exe.run(bindings);
    exe.dispose?.();
    expect(Array.from(got!.data)).toEqual(Array.from(interpret([out], bindings)[0]!.data));
  });

  it("merges a lane's partials several at a time with the bits of one at a time (sum, logsumexp)", async () => {
    // The last workgroup's lanes load up to loopIterationsInFlight partials each in one trip, the
    // stride between them the subgroup's size at run time; the fold keeps their order.
    const small = { parallelReduceMin: 1, busyGroups: 64, groupSize: 8, rowPassSubgroup: 4 };
    const x = data("x", [2, 4000], "f32");
    const outs = [sum(x, 1), logsumexp(x, 1)];
    const source = planProgram(outs, { ...limits, ...small, loopIterationsInFlight: 4 }, kernelPrelude).kernels.map((k) => k.source).join("\n");
    expect(Number(/\((\d+) workgroups per output, the last merges/.exec(source)![1])).toBeGreaterThan(16);
    expect(source).toContain("int i_3 = min(i_at + 3 * ppl_merge_lanes");
    const bindings = { x: Float64Array.from({ length: 8000 }, (_, i) => ((i * 37) % 11) - 5) };
    const run = async (loopIterationsInFlight: number) => {
      const exe = await (await vulkanBackend({ limits: { ...small, loopIterationsInFlight } })).compile(outs);
      const got = await exe.run(bindings);
      exe.dispose?.();
      return got.map((t) => Array.from(t.data));
    };
    const [four, one] = [await run(4), await run(1)];
    expect(four).toEqual(one);
    expect(four[0]).toEqual(Array.from(interpret([outs[0]!], bindings)[0]!.data));
    const want = Array.from(interpret([outs[1]!], bindings)[0]!.data);
    four[1]!.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThan(1e-5 * Math.abs(want[i]!)));
  });

  it("is deterministic: reruns and recompiles give bit-identical results", async () => {
    const x = data("x", [1_000_000], "f32");
    const outs = [sum(mul(x, x)), logsumexp(x), prod(add(mul(x, 1e-6), 1))];
    const bindings = { x: values(1_000_000, -10, 10, 5) };
    const exe = await backend.compile(outs);
    const a = await exe.run(bindings);
    const b = await exe.run(bindings);
    exe.dispose?.();
    const exe2 = await backend.compile(outs);
    const c = await exe2.run(bindings);
    exe2.dispose?.();
    for (let j = 0; j < outs.length; j++) {
      expect(Array.from(b[j]!.data)).toEqual(Array.from(a[j]!.data));
      expect(Array.from(c[j]!.data)).toEqual(Array.from(a[j]!.data));
    }
  });

  // The conformance cases that reduce, with limits that send even their small shapes down the
  // parallel path (tiny workgroups, so several partitions per output): with subgroup ops in f32,
  // with the shared-memory tree in f64 (the big fusion case only once: it compiles many kernels).
  // Matmuls take the tiled kernel here (skinny kernels off; matmul-skinny.test.ts forces those).
  const forced = [
    { name: "subgroups, 4-thread groups", dtype: "f32", fusion: true, limits: { parallelReduceMin: 1, tiledMatmulMin: 0, skinnyMatmulColumns: 0, busyGroups: 64, groupSize: 4 } },
    { name: "shared-memory tree, 8-thread groups", dtype: "f64", fusion: false, limits: { parallelReduceMin: 1, tiledMatmulMin: 0, skinnyMatmulColumns: 0, busyGroups: 64, groupSize: 8, subgroupArithmetic: false } },
  ] as const;
  for (const f of forced) {
    const dtype = DTYPES.includes(f.dtype) ? f.dtype : "f32";
    const cases = conformanceCases().filter((c) => /^reduce_|^matmul/.test(c.name) || (f.fusion && /^fusion: reductions/.test(c.name)));
    describe(`forced parallel kernels (${f.name})`, async () => {
      const forcedBackend = await vulkanBackend({ limits: f.limits });
      for (const c of cases) {
        it(`${c.name} ${dtype}`, async () => {
          await checkConformanceCase(forcedBackend, c, { dtype, numRuns: c.name.startsWith("fusion") ? 1 : 2, seed: 11 });
        });
      }
    });
  }
});

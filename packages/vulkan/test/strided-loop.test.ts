import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { add, data, gather, interpret, logsumexp, max, mul, param, reshape, scatterAdd, slice, square, sub, sum, type Node, type TensorValue } from "@ppl/tensor";
import { vulkanBackend } from "../src/backend.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { planProgram } from "../src/codegen/program.ts";
import { usableDevices } from "../src/devices.ts";
import { reals } from "./helpers.ts";

// Loops that run several iterations a trip (strided-loop.ts): a split reduction's slice and a
// segment's entries, their loads all in flight at once. The terms reach the state in the same
// order as in the plain loop, so every result is the same bits whatever the number of copies.
const device = usableDevices()[0];

/**
 * A hierarchical regression's sums over N rows, for C chains: r = y − α[g] − β·x with α a row
 * of J group effects gathered by the index g; its sums over the rows, and r scattered to the groups.
 */
function hierarchicalSums(C: number, N: number, J: number, dtype: "f32" | "f64"): Node[] {
  const alpha = param("alpha", [C, J], dtype);
  const beta = param("beta", [C, 1], dtype);
  const g = data("g", [N], "i32");
  const x = data("x", [N], dtype);
  const y = data("y", [N], dtype);
  const r = sub(y, add(gather(alpha, g, 1), mul(reshape(slice(beta, [undefined, { start: 0, stop: 1 }]), [C, 1]), x)));
  // Besides the sums, a max and a logsumexp: folds of more than one statement and of a paired state.
  return [sum(mul(-0.5, square(r)), [1]), sum(mul(r, x), [1]), sum(r, [1]), scatterAdd(r, g, 1, J), max(r, [1]), logsumexp(r, [1])];
}

/** Group indices in [0, J) with every fifth group left empty, in no order. */
function groups(N: number, J: number): number[] {
  let s = 7;
  return Array.from({ length: N }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    const j = Math.floor((s / 2 ** 32) * J);
    return j % 5 === 0 ? (j + 1) % J : j;
  });
}

// A GPU's split (several workgroups an output, several threads a segment) on lavapipe.
const SPLIT = { parallelReduceMin: 64, busyGroups: 64, segmentEntriesPerLane: 2 };

describe("loops with several iterations a trip: planning", () => {
  const outs = hierarchicalSums(4, 100_000, 2000, "f32");
  const sources = (copies: number) => planProgram(outs, { ...REFERENCE_LIMITS.h200, loopIterationsInFlight: copies }, () => "// (prelude)", { merge: true }).kernels.map((k) => k.source).join("\n");

  it("clamps each copy's index into the range, and folds the copies past the end into nothing", () => {
    const src = sources(4);
    // The split reduction: 256 threads a workgroup, 4 of their strides a trip.
    expect(src).toContain("k_at += 1024)");
    expect(src).toContain("int k_3 = min(k_at + 768, kEnd - 1);");
    expect(src).toMatch(/if \(k_at \+ 768 < kEnd\) \{ red_s0 = red_s0 \+ t\d+;/);
    // The segment sums: each copy reads its own entry.
    expect(src).toMatch(/int s_1 = min\(s_at \+ \d+, hi - 1\);/);
    expect(src).toContain("int p_3 = ");
  });

  it("keeps the plain loop with one copy", () => {
    const src = sources(1);
    expect(src).not.toContain("k_at");
    expect(src).not.toContain("s_at");
    expect(src).toContain("for (int k = p * ");
    expect(src).toContain("for (int s = lo + j; s < hi; s += ");
  });
});

describe.runIf(device !== undefined)("loops with several iterations a trip on the device", () => {
  const dtype = device?.features.shaderFloat64 ? "f64" : "f32";
  const value = (dt: TensorValue["dtype"], shape: number[], v: ArrayLike<number>): TensorValue => ({ dtype: dt, shape, data: Float64Array.from(v) });

  it("gives the same bits with 1, 3 and 8 copies, equal to the reference interpreter", async () => {
    // Sizes that leave partial trips: 3001 rows, 37 groups, 3 chains.
    const C = 3, N = 3001, J = 37;
    const outs = hierarchicalSums(C, N, J, dtype);
    const b = {
      alpha: value(dtype, [C, J], reals(C * J, 1)), beta: value(dtype, [C, 1], reals(C, 2)),
      g: value("i32", [N], groups(N, J)), x: value(dtype, [N], reals(N, 3)), y: value(dtype, [N], reals(N, 4)),
    };
    const want = interpret(outs, b);
    const results: number[][][] = [];
    for (const copies of [1, 3, 8]) {
      const limits = { ...SPLIT, loopIterationsInFlight: copies };
      const src = planProgram(outs, { ...REFERENCE_LIMITS.lavapipe, ...limits }, () => "").kernels.map((k) => k.source).join("\n");
      expect(src.includes("k_at") && src.includes("s_at")).toBe(copies > 1);
      const backend = await vulkanBackend({ limits });
      const exe = await backend.compile(outs);
      try {
        const got = await exe.run(b);
        results.push(got.map((t) => Array.from(t.data)));
        got.forEach((t, i) => t.data.forEach((v, e) => {
          const w = want[i]!.data[e]!;
          expect(Math.abs(v - w)).toBeLessThanOrEqual((dtype === "f64" ? 1e-9 : 1e-3) * (1 + Math.abs(w)));
        }));
      } finally {
        exe.dispose?.();
      }
    }
    expect(results[1]).toEqual(results[0]);
    expect(results[2]).toEqual(results[0]);
    // Every fifth group is empty: its scatter sums are zero.
    const scattered = results[2]![3]!;
    expect(scattered.length).toBe(C * J);
    for (let c = 0; c < C; c++) for (let j = 0; j < J; j += 5) expect(scattered[c * J + j]).toBe(0);
  });

  it("gives the same bits with any number of copies, for any rows, groups and chains (property)", async () => {
    // Ranges shorter than a trip, a trip and a bit, segments of one entry and none: few rows and
    // groups, small workgroups (lavapipe's) so that every thread's range is short.
    const arb = fc.record({
      C: fc.integer({ min: 1, max: 3 }), N: fc.integer({ min: 1, max: 200 }), J: fc.integer({ min: 1, max: 12 }), copies: fc.integer({ min: 2, max: 5 }), seed: fc.integer({ min: 1, max: 1000 }),
    });
    await fc.assert(
      fc.asyncProperty(arb, async ({ C, N, J, copies, seed }) => {
        const outs = hierarchicalSums(C, N, J, dtype);
        let st = seed;
        const g = Array.from({ length: N }, () => ((st = (Math.imul(st, 1664525) + 1013904223) >>> 0) % J));
        const b = {
          alpha: value(dtype, [C, J], reals(C * J, seed)), beta: value(dtype, [C, 1], reals(C, seed + 1)),
          g: value("i32", [N], g), x: value(dtype, [N], reals(N, seed + 2)), y: value(dtype, [N], reals(N, seed + 3)),
        };
        const runs: number[][][] = [];
        for (const k of [1, copies]) {
          const backend = await vulkanBackend({ limits: { parallelReduceMin: 8, busyGroups: 8, groupSize: 8, segmentEntriesPerLane: 1, loopIterationsInFlight: k } });
          const exe = await backend.compile(outs);
          try {
            runs.push((await exe.run(b)).map((t) => Array.from(t.data)));
          } finally {
            exe.dispose?.();
          }
        }
        expect(runs[1]).toEqual(runs[0]);
      }),
      { numRuns: 6, seed: 7 },
    );
  });
});

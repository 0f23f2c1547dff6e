import { describe, expect, it } from "vitest";
import { abs, cumsum, data, exp, grad, interpret, mul, param, sub, sum, type Node } from "@ppl/tensor";
import { checkConformanceCase, conformanceCases, type FloatDType } from "@ppl/tensor/testing";
import { vulkanBackend } from "../src/backend.ts";
import { limitsOf } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { usableDevices } from "../src/devices.ts";

// A long cumsum is scanned in blocks over workgroups (codegen/cumsum-parallel.ts), not walked by
// one thread a line. Checked against the reference interpreter with limits that force one block
// a line and several, forward and reverse, along either axis, with a producer computed inline.
const device = usableDevices()[0];
const DTYPES: readonly FloatDType[] = device?.features.shaderFloat64 ? ["f32", "f64"] : ["f32"];
const limits = limitsOf(device!);

/** Deterministic values in [-3, 3), rounded to f32 so both sides read the same inputs. */
function values(n: number, seed: number): Float64Array {
  let s = seed >>> 0;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.fround(-3 + (s / 2 ** 32) * 6);
  });
}

/** Each output within rel of the cumulative sum of |terms| that produced it (the scan's rounding grows with it). */
function expectWithin(got: ArrayLike<number>, want: ArrayLike<number>, scale: ArrayLike<number>, rel: number): void {
  expect(got.length).toBe(want.length);
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i]! - want[i]!) <= rel * scale[i]!)) expect.fail(`element ${i}: ${got[i]} against ${want[i]} (scale ${scale[i]})`);
  }
}

const sources = (outs: Node[], l: object, base = limits) => planProgram(outs, { ...base, ...l }, kernelPrelude).kernels.map((k) => k.source);

describe("cumsum scanned in blocks", () => {
  it.each(["this device", "h200"] as const)("walks no line of 100k in one thread: the lines are cut into blocks, a workgroup each (%s's limits)", (which) => {
    // Four chains of a random walk of 100k steps: a thread a line would add 100k terms in a row.
    const x = data("x", [4, 100_000], "f32");
    const src = sources([cumsum(x, 1), cumsum(x, 1, true)], {}, which === "h200" ? REFERENCE_LIMITS.h200 : limits).join("\n");
    const blocks = [...src.matchAll(/cumsum scanned in blocks: (\d+) of (\d+) a line/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(blocks).toHaveLength(2);
    for (const [P, L] of blocks) {
      expect(P).toBeGreaterThan(1);
      expect(L).toBeLessThanOrEqual(Math.ceil(100_000 / P!));
    }
    expect(src).toContain("cumsum's block sums");
    expect(src).not.toMatch(/for \(int \w+ = 0; \w+ < 100000; \w+\+\+\)/);
  });

  it("sums a line longer than lavapipe's loop budget whole (one thread's loop would end at 65535)", async () => {
    // This device's own limits: on lavapipe the line is scanned in blocks because it is longer
    // than a thread may loop; on a GPU because it is long.
    const n = 70_000;
    const x = data("x", [2, n], "f32");
    const outs = [cumsum(x, 1), cumsum(x, 1, true)];
    expect(sources(outs, {}).join("\n")).toContain("cumsum scanned in blocks");
    const bindings = { x: values(2 * n, 9) };
    const backend = await vulkanBackend();
    const exe = await backend.compile(outs);
    const got = await exe.run(bindings);
    exe.dispose?.();
    const want = interpret(outs, bindings);
    const scale = interpret([cumsum(abs(x), 1), cumsum(abs(x), 1, true)], bindings);
    for (let j = 0; j < 2; j++) expectWithin(got[j]!.data, want[j]!.data, scale[j]!.data, 4e-6);
  });

  it("keeps one thread a line where the lines are short, or many enough to fill the GPU alone (h200's limits)", () => {
    const h200 = REFERENCE_LIMITS.h200;
    expect(sources([cumsum(data("x", [4, 200], "f32"), 1)], {}, h200).join("\n")).not.toContain("cumsum scanned in blocks");
    expect(sources([cumsum(data("x", [40_000, 300], "f32"), 1)], {}, h200).join("\n")).not.toContain("cumsum scanned in blocks");
    // A thousand chains of 300 steps: a thread each would leave the GPU nearly idle; a workgroup each.
    expect(sources([cumsum(data("x", [1024, 300], "f32"), 1)], {}, h200).join("\n")).toMatch(/cumsum scanned in blocks: 1 of 300 a line/);
  });

  // groupSize 8: long runs a thread, walked twice, and three rounds of the shared-memory scan;
  // groupSize 64 with many blocks: runs of at most 8, kept in registers, over several subgroups.
  const layouts = [
    { name: "one block a line", limits: { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 1, groupSize: 8 }, blocks: 1, kept: false },
    { name: "several blocks a line (subgroup scans)", limits: { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 8, groupSize: 8 }, blocks: 2, kept: false },
    { name: "several blocks a line (shared-memory scan)", limits: { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 8, groupSize: 8, subgroupArithmetic: false }, blocks: 2, kept: false },
    { name: "short runs in registers (subgroup scans)", limits: { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 512, groupSize: 64 }, blocks: 1, kept: true },
    { name: "short runs in registers (shared-memory scan)", limits: { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 512, groupSize: 64, subgroupArithmetic: false }, blocks: 1, kept: true },
  ];
  for (const dtype of DTYPES) {
    for (const layout of layouts) {
      it(`equals the interpreter's, forward and reverse, along either axis: ${layout.name}, ${dtype}`, async () => {
        const backend = await vulkanBackend({ limits: layout.limits });
        const allRuns: number[] = [];
        for (const [shape, axis] of [[[3, 1001], 1], [[777, 2], 0], [[500], 0]] as [number[], number][]) {
          const x = data("x", shape, dtype);
          // exp(x/3) computed inline where the scan reads it; both directions.
          const term = exp(mul(x, 1 / 3));
          const outs = [cumsum(term, axis), cumsum(term, axis, true)];
          const src = sources(outs, layout.limits).join("\n");
          const P = [...src.matchAll(/cumsum scanned in blocks: (\d+) of/g)].map((m) => Number(m[1]));
          expect(P).toHaveLength(2);
          for (const p of P) expect(p >= layout.blocks).toBe(true);
          // A run of at most 16 is kept in registers; a longer one is walked twice from memory.
          const runs = [...src.matchAll(/runs of (\d+) a thread/g)].map((m) => Number(m[1]));
          allRuns.push(...runs);
          expect(src.includes("ppl_terms[")).toBe(runs.some((r) => r <= 16));
          expect(src.includes("for (int s = s0; s < s1; s++)")).toBe(runs.some((r) => r > 16));
          expect(src.includes("subgroupExclusiveAdd")).toBe(layout.limits.subgroupArithmetic !== false);
          const n = shape.reduce((a, b) => a * b, 1);
          const bindings = { x: values(n, n + axis) };
          const exe = await backend.compile(outs);
          const got = await exe.run(bindings);
          const again = await exe.run(bindings);
          exe.dispose?.();
          const want = interpret(outs, bindings);
          const scale = interpret([cumsum(abs(term), axis), cumsum(abs(term), axis, true)], bindings);
          const rel = dtype === "f32" ? 4e-6 : 1e-14;
          for (let j = 0; j < 2; j++) {
            expectWithin(got[j]!.data, want[j]!.data, scale[j]!.data, rel);
            // Every addition's order is fixed by the layout: a rerun gives the same bits.
            expect(Array.from(again[j]!.data)).toEqual(Array.from(got[j]!.data));
          }
        }
        expect(layout.kept ? allRuns.every((r) => r <= 16) : allRuns.some((r) => r > 16)).toBe(true);
      });
    }
  }

  it("gives a random walk's gradient (a reverse cumsum) equal to the interpreter's", async () => {
    // lp = Σ_t −(cumsum(z)_t − y_t)²/2: its gradient in z is the reverse cumsum of the residuals.
    const n = 3000;
    const z = param("z", [n], "f32");
    const y = data("y", [n], "f32");
    const resid = sub(cumsum(z, 0), y);
    const lp = sum(mul(mul(resid, resid), -0.5));
    const [g] = grad(lp, [z]);
    const outs = [lp, g!];
    const l = { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 64, groupSize: 8 };
    expect(sources(outs, l).join("\n")).toContain("cumsum scanned in blocks");
    const backend = await vulkanBackend({ limits: l });
    const bindings = { z: values(n, 5).map((v) => Math.fround(v / 30)), y: values(n, 6) };
    const exe = await backend.compile(outs);
    const got = await exe.run(bindings);
    exe.dispose?.();
    const want = interpret(outs, bindings);
    expect(Math.abs(got[0]!.data[0]! - want[0]!.data[0]!)).toBeLessThan(1e-4 * Math.abs(want[0]!.data[0]!));
    const scale = interpret([cumsum(abs(resid), 0, true)], bindings)[0]!.data;
    expectWithin(got[1]!.data, want[1]!.data, scale, 4e-6);
  });

  describe("the conformance cases with every cumsum scanned in blocks", async () => {
    const forced = await vulkanBackend({ limits: { scanBlockMin: 1, parallelReduceMin: 1, busyGroups: 64, groupSize: 4 } });
    for (const c of conformanceCases().filter((c) => c.ops.includes("cumsum"))) {
      for (const dtype of DTYPES) {
        it(`${c.name} ${dtype}`, async () => {
          await checkConformanceCase(forced, c, { dtype, numRuns: 3, seed: 17 });
        });
      }
    }
  });
});

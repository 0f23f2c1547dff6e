// Data stored in 16 bits: the f64 → binary16 rounding against a reference built from the table of
// every binary16 value, the codegen of float16_t buffers (golden kernel, typed error without
// 16-bit storage), and on lavapipe a program over half data equal, bit for bit, to the same
// program in f32 over the data rounded beforehand.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { data, exp, GraphError, matmul, mT, mul, param, sum, type Node } from "@ppl/tensor";
import { float16Bits, float16Value, roundToFloat16, toFloat16Bytes, FLOAT16_MAX, FLOAT16_EPSILON } from "../src/half.ts";
import { kernelPrelude } from "../src/codegen/kernel-prelude.ts";
import { limitsOf, type RenderLimits } from "../src/codegen/limits.ts";
import { planProgram } from "../src/codegen/program.ts";
import { REFERENCE_LIMITS } from "../src/codegen/reference-devices.ts";
import { residentProgram, toBytes } from "../src/resident-program.ts";
import { VulkanManager } from "../src/manager.ts";
import { lavapipe } from "./helpers.ts";

// The non-negative finite binary16 values in order: bit patterns 0 … 0x7bff increase with their value.
const POSITIVE = Array.from({ length: 0x7c00 }, (_, b) => float16Value(b));

/** Reference rounding: the nearest table entry by binary search, ties to the even pattern; past 65504 the next "value" is 2^16. */
function referenceBits(x: number): number {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  let lo = 0, hi = POSITIVE.length - 1;
  if (a >= POSITIVE[hi]!) {
    lo = hi;
  } else {
    // Largest b with POSITIVE[b] ≤ a.
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (POSITIVE[mid]! <= a) lo = mid;
      else hi = mid - 1;
    }
  }
  const below = POSITIVE[lo]!;
  const above = lo + 1 < POSITIVE.length ? POSITIVE[lo + 1]! : 2 ** 16;
  const dBelow = a - below, dAbove = above - a;
  const up = dAbove < dBelow || (dAbove === dBelow && lo % 2 === 1);
  return sign | (up ? lo + 1 : lo); // lo + 1 = 0x7c00 is infinity
}

describe("f64 → binary16 rounding", () => {
  it("every binary16 value converts back to its own bit pattern", () => {
    const wrong: number[] = [];
    for (let b = 0; b < 0x10000; b++) {
      const v = float16Value(b);
      if (Number.isNaN(v) ? (b & 0x7c00) !== 0x7c00 : float16Bits(v) !== b) wrong.push(b);
    }
    expect(wrong).toEqual([]);
  });

  it("rounds any double to the nearest binary16 value, ties to even (fast-check against the table)", () => {
    const anyDouble = fc.double({ min: -70000, max: 70000, noNaN: true });
    // Small magnitudes: subnormals and the smallest normals.
    const tiny = fc.double({ min: -(2 ** -12), max: 2 ** -12, noNaN: true });
    // Exact midpoints between neighbours, and the doubles right next to them (where rounding
    // through f32 first would go wrong).
    const nearMidpoint = fc.tuple(fc.integer({ min: 0, max: 0x7bfe }), fc.constantFrom(-1, 0, 1), fc.boolean()).map(([b, side, negative]) => {
      const mid = (POSITIVE[b]! + POSITIVE[b + 1]!) / 2;
      const x = side === 0 ? mid : side > 0 ? nextUp(mid) : nextDown(mid);
      return negative ? -x : x;
    });
    fc.assert(fc.property(fc.oneof(anyDouble, tiny, nearMidpoint), (x) => float16Bits(x) === referenceBits(x)), { numRuns: 20000 });
  });

  it("rounds from f64 directly, not through f32 (no double rounding)", () => {
    // Above the midpoint 1 + 2^-11 by 2^-40: f32 would drop the 2^-40 and then tie to even, giving 1.
    expect(Math.fround(1 + 2 ** -11 + 2 ** -40)).toBe(1 + 2 ** -11);
    expect(roundToFloat16(1 + 2 ** -11 + 2 ** -40)).toBe(1 + 2 ** -10);
  });

  it("gives the edge cases: signed zero, the largest value, overflow to infinity, NaN, subnormals", () => {
    expect(float16Bits(-0)).toBe(0x8000);
    expect(roundToFloat16(65519.99)).toBe(FLOAT16_MAX);
    expect(roundToFloat16(65520)).toBe(Infinity);
    expect(roundToFloat16(-1e6)).toBe(-Infinity);
    expect(Number.isNaN(roundToFloat16(NaN))).toBe(true);
    expect(roundToFloat16(2 ** -24)).toBe(2 ** -24);
    expect(roundToFloat16(2 ** -25)).toBe(0); // the tie between 0 and 2^-24 goes to even, 0
    expect(roundToFloat16(3 * 2 ** -26)).toBe(2 ** -24);
  });

  it("keeps the relative error of normal values within 2^-11", () => {
    fc.assert(
      fc.property(fc.double({ min: 2 ** -14, max: FLOAT16_MAX, noNaN: true }), (x) => Math.abs(roundToFloat16(x) - x) <= FLOAT16_EPSILON * x),
      { numRuns: 5000 },
    );
  });

  it("packs values into whole words", () => {
    expect(Array.from(toFloat16Bytes([1, -2, 0.5]))).toEqual([0x3c00, 0xc000, 0x3800, 0]);
    expect(toFloat16Bytes([1, 2]).length).toBe(2);
  });
});

function nextUp(x: number): number {
  const b = new Float64Array([x]);
  const i = new BigInt64Array(b.buffer);
  i[0] = i[0]! + 1n;
  return b[0]!;
}
function nextDown(x: number): number {
  const b = new Float64Array([x]);
  const i = new BigInt64Array(b.buffer);
  i[0] = i[0]! - 1n;
  return b[0]!;
}

// A logistic-regression-like gradient's reads of a large matrix: X·β (skinny matmul) and a row
// reduction of an elementwise function of X.
function program(X: Node, beta: Node): Node[] {
  return [matmul(X, beta), sum(exp(mul(X, 0.5)), [1])];
}

// The large-data gradient's matmuls over a big X: X·β and Xᵀ·r (skinny kernels, partial sums
// split over workgroups) and X·B with many columns (the tiled kernel, X staged in shared memory).
function matmuls(X: Node, beta: Node, r: Node, B: Node): Node[] {
  return [matmul(X, beta), matmul(mT(X), r), matmul(X, B)];
}

describe("codegen of data stored in 16 bits", () => {
  const X = data("X", [1024, 8], "f32");
  const beta = param("beta", [8, 2], "f32");
  const prelude = (dtypes: ReadonlySet<string>) => `// (math prelude: ${[...dtypes].join(", ")})`;

  it("declares the data float16_t (readonly), requires the extension and widens every read (golden kernels)", async () => {
    const plan = planProgram(program(X, beta), REFERENCE_LIMITS.h200, prelude, { halfStorage: new Set([X]) });
    const source = plan.kernels.map((k) => k.source).join("\n// ----\n");
    expect(plan.half).toEqual(new Set([X]));
    for (const k of plan.kernels) {
      const i = k.bindings.indexOf(X);
      if (i < 0) continue;
      expect(k.source).toContain("#extension GL_EXT_shader_16bit_storage : require");
      expect(k.source).toContain(`readonly restrict buffer Buf${i} { float16_t v[]; } b${i};`);
      // Every use of the array is a conversion to float.
      const uses = k.source.match(new RegExp(`b${i}\\.v\\[`, "g"))!.length;
      const widened = k.source.match(new RegExp(`float\\(b${i}\\.v\\[`, "g"))?.length ?? 0;
      expect(widened).toBe(uses);
    }
    await expect(source).toMatchFileSnapshot("./__snapshots__/half-storage.glsl");
  });

  it("skinny and tiled matmul kernels widen their reads too (golden kernels, H200 limits)", async () => {
    const big = data("X", [20000, 16], "f32");
    const plan = planProgram(matmuls(big, param("beta", [16, 1], "f32"), param("r", [20000, 1], "f32"), param("B", [16, 32], "f32")), REFERENCE_LIMITS.h200, prelude, { halfStorage: new Set([big]) });
    const reading = plan.kernels.filter((k) => k.bindings.includes(big));
    expect(reading.length).toBe(3);
    for (const k of reading) {
      const i = k.bindings.indexOf(big);
      expect(k.source).toContain(`buffer Buf${i} { float16_t v[]; } b${i};`);
      expect(k.source.match(new RegExp(`float\\(b${i}\\.v\\[`, "g"))?.length).toBe(k.source.match(new RegExp(`b${i}\\.v\\[`, "g"))!.length);
    }
    await expect(plan.kernels.map((k) => k.source).join("\n// ----\n")).toMatchFileSnapshot("./__snapshots__/half-storage-matmuls.glsl");
  });

  it("merged kernels keep the float16_t declaration", () => {
    const plan = planProgram(program(X, beta), REFERENCE_LIMITS.h200, prelude, { halfStorage: new Set([X]), merge: true });
    const reading = plan.kernels.filter((k) => k.bindings.includes(X));
    expect(reading.length).toBeGreaterThan(0);
    for (const k of reading) {
      const i = k.bindings.indexOf(X);
      expect(k.source).toContain("#extension GL_EXT_shader_16bit_storage : require");
      expect(k.source).toContain(`buffer Buf${i} { float16_t v[]; } b${i};`);
    }
  });

  it("a device without 16-bit storage gets a typed error that says to store the data exactly", () => {
    const limits: RenderLimits = { ...REFERENCE_LIMITS.h200, storage16: false };
    expect(() => planProgram(program(X, beta), limits, prelude, { halfStorage: new Set([X]) })).toThrow(GraphError);
    expect(() => planProgram(program(X, beta), limits, prelude, { halfStorage: new Set([X]) })).toThrow(/no 16-bit storage.*full precision/);
    // Without the option the same device plans as always.
    expect(planProgram(program(X, beta), limits, prelude).half.size).toBe(0);
  });

  it("only float data leaves may be stored in 16 bits", () => {
    expect(() => planProgram(program(X, beta), REFERENCE_LIMITS.h200, prelude, { halfStorage: new Set([beta]) })).toThrow(/only float data leaves/);
  });
});

describe("16-bit data on lavapipe", () => {
  it("computes in f32 exactly what the f32 program computes from the rounded data", async () => {
    const device = lavapipe();
    const limits = limitsOf(device);
    expect(limits.storage16).toBe(true);
    const manager = new VulkanManager(device.index);
    try {
      const [n, d] = [1000, 8];
      // Values spread over many binades, most of them not representable in 16 bits.
      const xs = Float64Array.from({ length: n * d }, (_, i) => Math.sin(i * 12.9898) * 3 + 1e-3 * Math.cos(i));
      const bs = Float64Array.from({ length: d * 2 }, (_, i) => 0.1 * (i - 7));
      const run = async (X: Node, beta: Node, half: boolean) => {
        const outs = program(X, beta);
        const plan = planProgram(outs, limits, kernelPrelude, half ? { halfStorage: new Set([X]) } : {});
        const p = await residentProgram(manager, plan);
        try {
          p.buffers.get(X)!.write(half ? toFloat16Bytes(xs) : toBytes("f32", xs.map(roundToFloat16)));
          p.buffers.get(beta)!.write(toBytes("f32", bs));
          const s = manager.sequence();
          p.dispatches.forEach((k) => s.dispatch(k.algorithm, k.buffers, k.groups));
          s.submitSync();
          s.destroy();
          return outs.map((o) => Array.from(new Float32Array(p.buffers.get(o)!.read(o.size * 4))));
        } finally {
          p.destroy();
        }
      };
      const half = await run(data("X", [n, d], "f32"), param("beta", [d, 2], "f32"), true);
      const exact = await run(data("X", [n, d], "f32"), param("beta", [d, 2], "f32"), false);
      expect(half).toEqual(exact);
    } finally {
      manager.destroy();
    }
  });

  it("the skinny and tiled matmuls over a large X, likewise", async () => {
    const device = lavapipe();
    const limits = limitsOf(device);
    const manager = new VulkanManager(device.index);
    try {
      const [n, d, m] = [20000, 16, 32];
      const xs = Float64Array.from({ length: n * d }, (_, i) => Math.sin(i * 0.7137) * 2.5);
      const values = (len: number, f: number) => Float64Array.from({ length: len }, (_, i) => Math.cos(i * f) * 0.5);
      const inputs = { beta: values(d, 1.3), r: values(n, 0.01), B: values(d * m, 0.37) };
      const run = async (half: boolean) => {
        const X = data("X", [n, d], "f32");
        const ps = { beta: param("beta", [d, 1], "f32"), r: param("r", [n, 1], "f32"), B: param("B", [d, m], "f32") };
        const outs = matmuls(X, ps.beta, ps.r, ps.B);
        const plan = planProgram(outs, limits, kernelPrelude, half ? { halfStorage: new Set([X]) } : {});
        const p = await residentProgram(manager, plan);
        try {
          p.buffers.get(X)!.write(half ? toFloat16Bytes(xs) : toBytes("f32", xs.map(roundToFloat16)));
          for (const [name, leaf] of Object.entries(ps)) p.buffers.get(leaf)!.write(toBytes("f32", inputs[name as keyof typeof inputs]));
          const s = manager.sequence();
          p.dispatches.forEach((k) => s.dispatch(k.algorithm, k.buffers, k.groups));
          s.submitSync();
          s.destroy();
          return outs.map((o) => Array.from(new Float32Array(p.buffers.get(o)!.read(o.size * 4))));
        } finally {
          p.destroy();
        }
      };
      expect(await run(true)).toEqual(await run(false));
    } finally {
      manager.destroy();
    }
  });
});

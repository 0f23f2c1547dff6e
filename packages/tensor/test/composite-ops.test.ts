/**
 * The operators composed from other ops: values against direct loops (the semantics, ties and
 * NaN included) and gradients against finite differences on random inputs.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import * as T from "../src/index.ts";
import type { Node } from "../src/index.ts";

const run = (n: Node, bindings: T.Bindings = {}) => Array.from(T.interpret([n], bindings)[0]!.data);
const real = (lo: number, hi: number) => fc.noBias(fc.integer({ min: 0, max: 2 ** 30 })).map((k) => lo + ((hi - lo) * k) / 2 ** 30);
const reals = (n: number, lo = -2, hi = 2) => fc.array(real(lo, hi), { minLength: n, maxLength: n });

describe("any, all, isNan, isFinite", () => {
  it("reduce bools over axes, with all() true over an empty axis", () => {
    const b = T.constant([1, 0, 0, 0, 0, 0], [2, 3], "bool");
    expect(run(T.any(b, 1))).toEqual([1, 0]);
    expect(run(T.all(b, 0))).toEqual([0, 0, 0]);
    expect(run(T.all(T.constant([1, 1], [2], "bool")))).toEqual([1]);
    expect(T.any(b).dtype).toBe("bool");
    expect(run(T.all(T.constant(1, [0], "bool")))).toEqual([1]);
    expect(run(T.any(T.constant(1, [0], "bool")))).toEqual([0]);
    // The i32 identities of max and min, which decide any and all over nothing.
    expect(run(T.max(T.constant(1, [0], "i32")))).toEqual([-(2 ** 31)]);
    expect(run(T.min(T.constant(1, [2, 0], "i32"), 1))).toEqual([2 ** 31 - 1, 2 ** 31 - 1]);
    expect(() => T.any(T.constant([1, 2], [2]))).toThrow(/expects bool/);
  });

  it("classify NaN and the infinities", () => {
    const x = T.constant([0, NaN, Infinity, -Infinity, -3.5], [5]);
    expect(run(T.isNan(x))).toEqual([0, 1, 0, 0, 0]);
    expect(run(T.isFinite(x))).toEqual([1, 0, 0, 0, 1]);
    expect(run(T.isFinite(T.constant([1, 2], [2], "i32")))).toEqual([1, 1]);
  });
});

describe("iota and eye", () => {
  it("iota counts from 0 and eye is rectangular on request", () => {
    expect(run(T.iota(4))).toEqual([0, 1, 2, 3]);
    expect(T.iota(3).dtype).toBe("i32");
    expect(run(T.eye(2, 3))).toEqual([1, 0, 0, 0, 1, 0]);
    expect(T.eye(3).shape).toEqual([3, 3]);
    expect(() => T.iota(-1)).toThrow(/non-negative integer/);
  });
});

describe("argmax and argmin", () => {
  it("give the first index of the extreme along an axis, NaN counting as the extreme", () => {
    const x = T.constant([1, 3, 3, 0, -1, 5, 5, -1], [2, 4]);
    expect(run(T.argmax(x))).toEqual([1, 1]);
    expect(run(T.argmin(x))).toEqual([3, 0]);
    expect(run(T.argmax(x, 0))).toEqual([0, 1, 1, 0]);
    expect(T.argmax(x, 1, true).shape).toEqual([2, 1]);
    expect(run(T.argmax(T.constant([1, NaN, 2, NaN], [4])))).toEqual([1]);
    expect(run(T.argmin(T.constant([3, 1, 1], [3], "i32")))).toEqual([1]);
  });

  it("agree with a direct loop on random vectors", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 1, maxLength: 9 }), (v) => {
        const x = T.constant(v, [v.length]);
        expect(run(T.argmax(x))).toEqual([v.indexOf(Math.max(...v))]);
        expect(run(T.argmin(x))).toEqual([v.indexOf(Math.min(...v))]);
      }),
    );
  });
});

describe("putSlice", () => {
  it("replaces a block and keeps the rest", () => {
    const x = T.constant([0, 1, 2, 3, 4, 5], [2, 3]);
    expect(run(T.putSlice(x, T.constant([9, 8], [1, 2]), [1, 1]))).toEqual([0, 1, 2, 3, 9, 8]);
    expect(() => T.putSlice(x, T.constant([9, 8], [1, 2]), [1, 2])).toThrow(/does not fit/);
  });

  it("splits the cotangent between x and the block (finite differences)", () => {
    const x = T.param("x", [3, 4]), v = T.param("v", [2, 2]);
    const f = T.sum(T.mul(T.data("w", [3, 4]), T.square(T.putSlice(x, v, [1, 1]))));
    fc.assert(
      fc.property(reals(12), reals(4), reals(12), (xs, vs, ws) => {
        const r = T.checkGrad(f, [x, v], { x: xs, v: vs, w: ws });
        expect(r.ok, r.message).toBe(true);
      }),
      { numRuns: 30 },
    );
  });
});

// y[i] = Σ_j x[i + j]·w[k − 1 − j], the definition conv1d documents.
function convLoop(x: number[], w: number[]): number[] {
  const k = w.length;
  return Array.from({ length: x.length - k + 1 }, (_, i) => w.reduce((s, _w, j) => s + x[i + j]! * w[k - 1 - j]!, 0));
}

describe("conv1d and the sliding-window reductions", () => {
  it("match direct loops (conv flips the kernel, as NumPy's convolve 'valid')", () => {
    expect(run(T.conv1d(T.constant([1, 2, 3], [3]), T.constant([0, 1], [2])))).toEqual([1, 2]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }).chain((n) => fc.tuple(reals(n), fc.integer({ min: 1, max: n }))), ([x, k]) => {
        const w = x.slice(0, k).map((v) => v * 0.5 + 1);
        const xs = T.constant(x, [x.length]);
        const got = run(T.conv1d(xs, T.constant(w, [k])));
        convLoop(x, w).forEach((want, i) => expect(got[i]).toBeCloseTo(want, 12));
        const sums = run(T.slidingSum(xs, k));
        const maxes = run(T.slidingMax(xs, k));
        for (let i = 0; i + k <= x.length; i++) {
          const win = x.slice(i, i + k);
          expect(sums[i]).toBeCloseTo(win.reduce((a, b) => a + b, 0), 12);
          expect(maxes[i]).toBe(Math.max(...win));
        }
      }),
    );
  });

  it("run along any axis of a batch", () => {
    const x = T.constant([1, 2, 3, 4, 5, 6], [3, 2]);
    expect(run(T.slidingSum(x, 2, 0))).toEqual([4, 6, 8, 10]);
    expect(run(T.slidingMax(x, 3, 0))).toEqual([5, 6]);
    expect(T.conv1d(T.constant(0, [4, 5]), T.constant([1, 1], [2])).shape).toEqual([4, 4]);
    expect(() => T.slidingSum(x, 4, 0)).toThrow(/does not fit/);
  });

  it("have gradients in x and the kernel (finite differences)", () => {
    const x = T.param("x", [2, 7]), w = T.param("w", [3]), wt = T.data("wt", [2, 5]);
    const conv = T.sum(T.mul(wt, T.square(T.conv1d(x, w))));
    const ssum = T.sum(T.mul(wt, T.square(T.slidingSum(x, 3))));
    const smax = T.sum(T.mul(wt, T.slidingMax(x, 3)));
    // Distinct entries at least 0.05 apart: no ties for the max, where it has no derivative.
    const distinct = fc.shuffledSubarray([...Array(14).keys()], { minLength: 14, maxLength: 14 }).map((p) => p.map((i) => i * 0.3 - 2));
    fc.assert(
      fc.property(reals(14), reals(3), reals(10), distinct, (xs, ws, wts, xd) => {
        for (const [f, wrt, b] of [
          [conv, [x, w], { x: xs, w: ws, wt: wts }],
          [ssum, [x], { x: xs, wt: wts }],
          [smax, [x], { x: xd, wt: wts }],
        ] as const) {
          const r = T.checkGrad(f, wrt, b);
          expect(r.ok, r.message).toBe(true);
        }
      }),
      { numRuns: 30 },
    );
  });
});

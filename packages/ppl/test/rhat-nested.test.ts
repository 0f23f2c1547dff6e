/**
 * Nested R-hat (diagnostics/rhat-nested.ts) against the paper's definition: a case computed by hand,
 * its invariance to an affine map of the draws and to relabelling the superchains (properties),
 * NA as R-hat's, and the refusals of superchains that do not fit.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contiguousSuperchains, rhatNested } from "../src/diagnostics/rhat-nested.ts";

describe("nested R-hat", () => {
  it("equals the paper's formulas on a case computed by hand", () => {
    // Superchain 0: chains [1,3], [2,4] (means 2, 3; variances 2, 2): B̃ = 0.5, W̃ = 2.
    // Superchain 1: chains [4,6], [6,10] (means 5, 8; variances 2, 8): B̃ = 4.5, W̃ = 5.
    // Superchain means 2.5, 6.5: B̂ν = 8; Ŵν = (2.5 + 9.5)/2 = 6; nR̂ = √(1 + 8/6) = √(7/3).
    const draws = [[1, 3], [2, 4], [4, 6], [6, 10]];
    expect(rhatNested(draws, [0, 0, 1, 1])).toBeCloseTo(Math.sqrt(7 / 3), 14);
    // The labels' order does not matter, only the grouping.
    expect(rhatNested([draws[0]!, draws[2]!, draws[1]!, draws[3]!], [7, 3, 7, 3])).toBeCloseTo(Math.sqrt(7 / 3), 14);
  });

  it("with one chain a superchain, B̃ = 0; with one draw a chain, W̃ = 0", () => {
    // Chains [1,3] and [4,8]: means 2, 6 → B̂ν = 8; W̃ = (2 + 8)/2 = 5; nR̂ = √(1 + 8/5).
    expect(rhatNested([[1, 3], [4, 8]], [0, 1])).toBeCloseTo(Math.sqrt(1 + 8 / 5), 14);
    // One draw a chain: chains 1, 3 | 4, 8: superchain means 2, 6 → B̂ν = 8; B̃ = 2, 8 → Ŵν = 5.
    expect(rhatNested([[1], [3], [4], [8]], [0, 0, 1, 1])).toBeCloseTo(Math.sqrt(1 + 8 / 5), 14);
  });

  it("is invariant to an affine map of the draws and to relabelling the superchains", () => {
    // Whole numbers: draws not all equal stay so (to R-hat's NA rule) after the map.
    const draws = fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: 3, maxLength: 3 }), { minLength: 6, maxLength: 6 });
    fc.assert(
      fc.property(draws, fc.double({ min: 0.1, max: 10, noNaN: true }), fc.double({ min: -50, max: 50, noNaN: true }), (d, a, b) => {
        const labels = [0, 0, 1, 1, 2, 2];
        const r = rhatNested(d, labels);
        fc.pre(Number.isFinite(r));
        expect(rhatNested(d.map((c) => c.map((x) => a * x + b)), labels)).toBeCloseTo(r, 6);
        expect(rhatNested(d, [5, 5, 9, 9, 1, 1])).toBe(r);
        expect(r).toBeGreaterThanOrEqual(1);
      }),
    );
  });

  it("is NaN for constant or non-finite draws, and refuses superchains that do not fit", () => {
    expect(rhatNested([[1, 1], [1, 1]], [0, 1])).toBeNaN();
    expect(rhatNested([[1, Infinity], [1, 2]], [0, 1])).toBeNaN();
    expect(() => rhatNested([[1, 2], [3, 4]], [0])).toThrow(/2 chains/);
    expect(() => rhatNested([[1, 2], [3, 4]], [0, 0])).toThrow(/at least 2/);
    expect(() => rhatNested([[1, 2], [3, 4], [5, 6]], [0, 0, 1])).toThrow(/same number of chains/);
    expect(Array.from(contiguousSuperchains(6, 3))).toEqual([0, 0, 1, 1, 2, 2]);
    expect(() => contiguousSuperchains(6, 4)).toThrow(/divisor of 6/);
  });
});

import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { chainProgress, powerOfTwoParts, stepsToSubmit } from "../src/steps-per-submit.ts";

const begin = { phase: 0, k: 0, depth: 0, leaf: 0 };

describe("steps per submission of the device shape", () => {
  it("a fresh block asks for the last pace times the transitions, plus the finishing call", () => {
    expect(stepsToSubmit([begin, begin], 1, 7, 1024)).toBe(8);
    expect(stepsToSubmit([begin], 3, 5, 1024)).toBe(16);
  });

  it("a chain inside a subtree needs its remaining leaves first; finished chains need nothing", () => {
    const mid = { phase: 1, k: 0, depth: 3, leaf: 5 };
    expect(stepsToSubmit([mid, { phase: 2, k: 1, depth: 0, leaf: 0 }], 1, 7, 1024)).toBe(4);
    // Two transitions left after this one at a pace of 10: 3 + 20 + 1.
    expect(stepsToSubmit([{ ...mid, k: 0 }], 3, 10, 1024)).toBe(24);
  });

  it("rounds large counts up to an eighth of their power of two and caps them", () => {
    // 100 transitions at 15 leapfrogs: 1501 steps → the grain of 1024..2047 is 128 → 1536, capped.
    expect(stepsToSubmit([begin], 100, 15, 4096)).toBe(1536);
    expect(stepsToSubmit([begin], 100, 15, 1024)).toBe(1024);
    expect(stepsToSubmit([begin], 1, 40, 1024)).toBe(44);
    for (let n = 1; n < 3000; n += 7) {
      const s = stepsToSubmit([begin], 1, n - 1, 1 << 20);
      expect(s).toBeGreaterThanOrEqual(n);
      expect(s).toBeLessThanOrEqual(Math.ceil(n * 1.125));
    }
  });

  it("reads every chain's phase, k, depth and leaf from the int state", () => {
    const ints = Int32Array.from([1, 2, 9, 3, 4, 1, 0, 2, 5, 0, 0, 0, 0, 0]);
    expect(chainProgress(ints, 2)).toEqual([{ phase: 1, k: 2, depth: 3, leaf: 4 }, { phase: 2, k: 5, depth: 0, leaf: 0 }]);
  });

  it("runs a submission as the powers of two that sum to it, largest first", () => {
    expect(powerOfTwoParts(1)).toEqual([1]);
    expect(powerOfTwoParts(8)).toEqual([8]);
    expect(powerOfTwoParts(13)).toEqual([8, 4, 1]);
    expect(powerOfTwoParts(1536)).toEqual([1024, 512]);
    fc.assert(fc.property(fc.integer({ min: 1, max: 1 << 20 }), (n) => {
      const parts = powerOfTwoParts(n);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(n);
      parts.forEach((p, i) => {
        expect(Number.isInteger(Math.log2(p))).toBe(true);
        if (i > 0) expect(p).toBeLessThan(parts[i - 1]!);
      });
    }));
    // Capped at a largest part: that part repeated, then the powers of two of the rest.
    expect(powerOfTwoParts(1000, 128)).toEqual([128, 128, 128, 128, 128, 128, 128, 64, 32, 8]);
    expect(powerOfTwoParts(256, 128)).toEqual([128, 128]);
    expect(powerOfTwoParts(100, 128)).toEqual(powerOfTwoParts(100));
    fc.assert(fc.property(fc.integer({ min: 1, max: 1 << 16 }), fc.integer({ min: 0, max: 12 }), (n, b) => {
      const parts = powerOfTwoParts(n, 2 ** b);
      expect(parts.reduce((a, p) => a + p, 0)).toBe(n);
      expect(Math.max(...parts)).toBeLessThanOrEqual(2 ** b);
    }));
    // What stepsToSubmit asks for stays within four parts.
    for (const pace of [1, 3, 7, 15, 40]) {
      for (const k of [1, 10, 100]) expect(powerOfTwoParts(stepsToSubmit([begin], k, pace, 1024)).length).toBeLessThanOrEqual(4);
    }
  });
});

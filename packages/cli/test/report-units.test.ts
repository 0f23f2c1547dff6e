// The report's pieces that need no browser: tick values, grouped warnings, the per-chain density.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { DiagnosticWarning } from "@ppl/ppl";
import { gaussianKde, silvermanBandwidth } from "../src/report/density.ts";
import { Scale } from "../src/report/svg.ts";
import { niceTicks, tickStep } from "../src/report/ticks.ts";
import { groupWarnings } from "../src/report/warning-groups.ts";

describe("tick values", () => {
  it("gives at least two ticks where rounding the step up gave one (a trace of values in 0.05…0.89)", () => {
    expect(new Scale(0.05, 0.89, 0, 100).ticks(4)).toEqual([0.2, 0.4, 0.6, 0.8]);
    // Asked for two, the nearest step (0.5) has one multiple inside: the step shrinks to 0.2.
    expect(niceTicks(0.05, 0.89, 2)).toEqual([0.2, 0.4, 0.6, 0.8]);
  });

  it("rounds the step to the nearest of 1, 2, 5 × 10^k, as d3-array does", () => {
    expect(tickStep(10, 10)).toBe(1);
    expect(tickStep(1, 3)).toBe(0.5); // 0.333: nearer 0.5 than 0.2 on a log scale
    expect(tickStep(1, 7)).toBe(0.2); // 0.143 ≥ √2 / 10
    expect(tickStep(1, 8)).toBe(0.1); // 0.125 < √2 / 10
    expect(niceTicks(0, 1, 5)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(-3.7, 12.2, 4)).toEqual([0, 5, 10]);
    expect(niceTicks(1, 150, 5)).toEqual([20, 40, 60, 80, 100, 120, 140]);
  });

  it("for any domain and count: two or more ticks inside it, evenly spaced round values that print without float noise", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1e6, max: 1e6, noNaN: true }),
        fc.double({ min: 1e-6, max: 1e6, noNaN: true }),
        fc.integer({ min: 1, max: 10 }),
        (lo, span, count) => {
          const hi = lo + span;
          // Spans below a millionth of the values are beyond what 4-digit tick labels can show.
          fc.pre(hi > lo && span > Math.abs(lo) * 1e-6);
          const t = niceTicks(lo, hi, count);
          expect(t.length).toBeGreaterThanOrEqual(2);
          expect(t.length).toBeLessThanOrEqual(Math.max(5, count * 3));
          for (const v of t) {
            expect(v).toBeGreaterThanOrEqual(lo - span * 1e-9);
            expect(v).toBeLessThanOrEqual(hi + span * 1e-9);
            expect(String(v)).not.toMatch(/\d{9,}/);
          }
          const step = t[1]! - t[0]!;
          const mantissa = step / 10 ** Math.floor(Math.log10(step) + 1e-9);
          expect([1, 2, 5].some((m) => Math.abs(mantissa - m) < 1e-4)).toBe(true);
        },
      ),
      { seed: 16, numRuns: 2000 },
    );
  });
});

describe("grouped warnings", () => {
  const w = (kind: DiagnosticWarning["kind"], value: number, extra: Partial<DiagnosticWarning> = {}): DiagnosticWarning => ({ kind, value, threshold: 0, message: `${kind} message`, ...extra });

  it("puts the sampler's problems first and gives one line per criterion listing its parameters", () => {
    const groups = groupWarnings([
      w("rhat", 1.0234, { parameter: "a", threshold: 1.01 }),
      w("ess_bulk", 123.4, { parameter: "a", threshold: 400 }),
      w("rhat", 1.2, { parameter: "b[2]", threshold: 1.01 }),
      w("ess_bulk", 1234.6, { parameter: "c", threshold: 4000 }),
      w("ebfmi", 0.21, { chain: 2, threshold: 0.3 }),
      w("divergences", 7),
      w("ebfmi", 0.1, { chain: 0, threshold: 0.3 }),
      w("treedepth", 3),
    ]);
    expect(groups.map((g) => [g.scope, g.kind])).toEqual([
      ["sampler", "divergences"],
      ["sampler", "treedepth"],
      ["sampler", "ebfmi"],
      ["parameters", "rhat"],
      ["parameters", "ess_bulk"],
    ]);
    expect(groups[0]!.text).toBe("divergences message");
    expect(groups[2]!.text).toMatch(/^E-BFMI below 0.3 in 2 chains: chain 3 \(0.21\), chain 1 \(0.10\)\. /);
    expect(groups[3]!.text).toMatch(/^R-hat above 1.01 for 2 parameters: a \(1.023\), b\[2\] \(1.200\)\. The chains have not mixed/);
    expect(groups[4]!.text).toMatch(/^Bulk-ESS below 400 \(100 per chain\) for 2 parameters: a \(123\), c \(1235\)\. /);
  });

  it("is empty without warnings", () => {
    expect(groupWarnings([])).toEqual([]);
  });
});

describe("per-chain density", () => {
  it("integrates to one and peaks near the draws' centre", () => {
    let state = 7;
    const normal = (): number => {
      const u = ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
      const v = ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
      return 3 + 2 * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    };
    const draws = Float64Array.from({ length: 2000 }, normal);
    const h = silvermanBandwidth(draws);
    expect(h).toBeGreaterThan(0.2);
    expect(h).toBeLessThan(0.6);
    const grid = Array.from({ length: 801 }, (_, i) => -7 + (20 * i) / 800);
    const d = gaussianKde(draws, grid, h);
    const integral = d.reduce((a, b) => a + b, 0) * (20 / 800);
    expect(integral).toBeCloseTo(1, 3);
    const peak = grid[d.indexOf(Math.max(...d))]!;
    expect(Math.abs(peak - 3)).toBeLessThan(0.5);
  });

  it("has a positive bandwidth for constant draws and skips non-finite ones", () => {
    expect(silvermanBandwidth([2, 2, 2])).toBeGreaterThan(0);
    expect(gaussianKde([NaN, 1, Infinity], [1], 1)).toEqual([1 / Math.sqrt(2 * Math.PI)]);
  });
});

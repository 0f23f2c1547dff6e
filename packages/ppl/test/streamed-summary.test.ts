// The summary made from a DrawSource (the pooled draws sorted, one split chain at a time) gives
// what ParameterDraws' in-memory route gives, bit for bit, and the ESS's two passes (a few lags
// first, all of them when Geyer's sequences read further) give the ESS of all lags.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { chainOf, toChainMatrix } from "../src/diagnostics/draws.ts";
import { drawsSource } from "../src/diagnostics/draw-source.ts";
import { essFromPass, essOfMatrix, lagsFor, seriesPass } from "../src/diagnostics/ess.ts";
import { summarizeEach, summarizeInMemory, summarizeParameter } from "../src/diagnostics/summary.ts";
import { nonFiniteWarnings } from "../src/diagnostics/warnings.ts";

// Ties, both zeros, infinities, subnormals and NaN.
const awkwardValue = fc.oneof(
  fc.double({ min: -5, max: 5, noNaN: true }),
  fc.constantFrom(0, -0, 1, -1, 2.5, Infinity, -Infinity, 5e-324, -5e-324, NaN),
);

describe("the streamed summary", () => {
  it("equals the in-memory summary bit for bit, and warns of the same non-finite draws", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 41 }), fc.array(awkwardValue, { minLength: 1, maxLength: 170 }), fc.boolean(), (chains, n, pool, withNaN) => {
        const value = (k: number): number => {
          const v = pool[k % pool.length]!;
          return !withNaN && Number.isNaN(v) ? 0.5 : v;
        };
        const x = Array.from({ length: chains }, (_, c) => Array.from({ length: n }, (_, i) => value(c * n + i)));
        const expected = summarizeInMemory("x", x);
        const got = summarizeParameter("x", drawsSource(x));
        for (const [key, v] of Object.entries(expected)) expect(Object.is(got[key as keyof typeof got], v), `${key}: ${String(got[key as keyof typeof got])} vs ${String(v)}`).toBe(true);
        const warnings = summarizeEach(["x"], () => drawsSource(x)).warnings.filter((w) => w.kind === "nonfinite");
        expect(warnings).toEqual(nonFiniteWarnings([["x", x]]));
      }),
      { seed: 48, numRuns: 300 },
    );
  });

  it("equals the in-memory summary for split chains long enough for the radix sort, odd and even", () => {
    for (const n of [1200, 1201]) {
      // Rounded to a tenth: many ties; a NaN-free AR(1)-like walk so that the chains differ.
      const x = [0, 1, 2].map((c) => {
        let v = c;
        return Array.from({ length: n }, (_, i) => (v = Math.round((0.8 * v + Math.sin(i * 1.7 + c)) * 10) / 10));
      });
      const expected = summarizeInMemory("x", x);
      const got = summarizeParameter("x", drawsSource(x));
      for (const [key, v] of Object.entries(expected)) expect(Object.is(got[key as keyof typeof got], v), `n ${n}, ${key}: ${String(got[key as keyof typeof got])} vs ${String(v)}`).toBe(true);
    }
  });

  it("reads past the first pass's lags with a second pass of all of them", () => {
    // A slow wave: its autocorrelations stay positive far beyond the first pass's 29 lags of 100.
    const n = 100;
    const m = toChainMatrix([0, 1].map((c) => Array.from({ length: n }, (_, i) => Math.sin(i / 20 + c) + 0.01 * ((i * 7919) % 13))));
    const series = (c: number): Float64Array => chainOf(m, c);
    expect(lagsFor(n)).toBe(29);
    expect(essFromPass(seriesPass(2, n, series, lagsFor(n)))).toBeNull();
    const all = essFromPass(seriesPass(2, n, series, n));
    expect(all).not.toBeNull();
    expect(essOfMatrix(m)).toBe(all);
  });
});

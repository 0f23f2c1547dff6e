// The summary made from a DrawSource (the pooled draws sorted, one split chain at a time) gives
// what ParameterDraws' in-memory route gives, bit for bit, and the ESS's two passes (a few lags
// first, all of them when Geyer's sequences read further) give the ESS of all lags.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { chainOf, toChainMatrix } from "../src/diagnostics/draws.ts";
import { drawsSource } from "../src/diagnostics/draw-source.ts";
import { essFromPass, essOfMatrix, lagsFor, seriesPass } from "../src/diagnostics/ess.ts";
import { fftInPlace } from "../src/diagnostics/fft.ts";
import { STEP_WORK } from "../src/diagnostics/steps.ts";
import { summarizeSourceSteps } from "../src/diagnostics/streamed-summary.ts";
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

  it("yields inside its loops: at most 2^18 draws read between two yields, and yields in proportion to the work", () => {
    // 4 chains of 2^16 draws: split chains of STEP_WORK draws, transforms of STEP_WORK complex points.
    const n = 1 << 16;
    const x = [0, 1, 2, 3].map((c) => {
      let v = 0;
      let s = 17 + c;
      return Float64Array.from({ length: n }, () => {
        s = (s * 16807) % 2147483647;
        return (v = 0.5 * v + s / 2147483647 - 0.5);
      });
    });
    let read = 0;
    let most = 0;
    const source = { chains: 4, iterations: n, read: (c: number, start: number, out: Float64Array) => ((read += out.length), out.set(x[c]!.subarray(start, start + out.length))) };
    const steps = summarizeSourceSteps("x", source);
    let yields = 0;
    for (let r = steps.next(); !r.done; r = steps.next()) {
      most = Math.max(most, read);
      read = 0;
      yields++;
    }
    expect(most).toBeLessThanOrEqual(1 << 18);
    // Each of the pooled draws' five sums and the sort's passes, and each split chain's read, ranks
    // and two transforms of seven passes, yield every STEP_WORK elements: far more than one yield a
    // split chain (the steps before, 8 a pass).
    expect(yields).toBeGreaterThan((40 * 4 * n) / STEP_WORK);
  });
});

describe("the FFT in steps", () => {
  it("equals the textbook iterative radix-2 transform in one call, bit for bit, where it works in ranges (2^17 points)", () => {
    const n = 1 << 17;
    let s = 5;
    const rand = (): number => ((s = (s * 16807) % 2147483647), s / 2147483647 - 0.5);
    const re = Float64Array.from({ length: n }, rand);
    const im = Float64Array.from({ length: n }, rand);
    const [r1, i1] = [re.slice(), im.slice()];
    fftInPlace(r1, i1);
    const [r2, i2] = [re.slice(), im.slice()];
    textbookFft(r2, i2);
    expect(Buffer.from(r1.buffer).equals(Buffer.from(r2.buffer))).toBe(true);
    expect(Buffer.from(i1.buffer).equals(Buffer.from(i2.buffer))).toBe(true);
  });
});

// The transform as fft.ts computed it in one call before it worked in steps: bit reversal by
// swaps, then each stage's blocks in order, twiddles exp(-2πi·k/n) read from one table of n/2.
function textbookFft(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  const angle = (-2 * Math.PI) / n;
  const cos = Float64Array.from({ length: n / 2 }, (_, k) => Math.cos(angle * k));
  const sin = Float64Array.from({ length: n / 2 }, (_, k) => Math.sin(angle * k));
  for (let stage = 2; stage <= n; stage <<= 1) {
    const half = stage >> 1;
    const stride = n / stage;
    for (let start = 0; start < n; start += stage) {
      for (let k = 0; k < half; k++) {
        const wr = cos[k * stride]!;
        const wi = sin[k * stride]!;
        const a = start + k;
        const b = a + half;
        const tr = wr * re[b]! - wi * im[b]!;
        const ti = wr * im[b]! + wi * re[b]!;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
      }
    }
  }
}

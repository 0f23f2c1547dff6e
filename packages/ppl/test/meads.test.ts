/**
 * MEADS on the inference layer: its draws from a correlated Gaussian with 256 chains have the
 * target's means and variances within Monte Carlo error (fixed seed, |z| ≤ 4 per statistic, the
 * MCSE from the draws' own ESS); its warmup lands the step size, the metric and the damping in the
 * range the target's scales imply; the eigenvalue estimate is the paper's; runs are reproducible;
 * chain counts the folds cannot split are refused; from random initial points in (−2, 2) it
 * reaches a regression's posterior whose coefficients' sds are 10⁻³ (sblrc-blr's shape: unscaled
 * predictors, a noise scale far from its conditional mode), which it did not before the travel-in.
 */
import { describe, expect, it } from "vitest";
import { mcseMean, sample, type BatchedDensity, type SampleResult } from "../src/index.ts";
import { maxEigenvalue } from "../src/inference.ts";

// A 2-D Gaussian with means MU, sds SD and correlation RHO, and an independent N(0, 10²) third coordinate.
const MU = [1, -2, 0];
const SD = [1, 2, 10];
const RHO = 0.9;
const gaussian: BatchedDensity = {
  dim: 3,
  logpGrad(q, lp, grad) {
    const k = 1 / (1 - RHO * RHO);
    for (let c = 0; c < lp.length; c++) {
      const o = c * 3;
      const z0 = (q[o]! - MU[0]!) / SD[0]!;
      const z1 = (q[o + 1]! - MU[1]!) / SD[1]!;
      const z2 = (q[o + 2]! - MU[2]!) / SD[2]!;
      lp[c] = -0.5 * k * (z0 * z0 - 2 * RHO * z0 * z1 + z1 * z1) - 0.5 * z2 * z2;
      grad[o] = (-k * (z0 - RHO * z1)) / SD[0]!;
      grad[o + 1] = (-k * (z1 - RHO * z0)) / SD[1]!;
      grad[o + 2] = -z2 / SD[2]!;
    }
  },
};

const coordinate = (r: SampleResult, j: number, f: (x: number) => number = (x) => x): Float64Array[] =>
  r.draws.map((d) => Float64Array.from({ length: r.drawsDone }, (_, i) => f(d[i * r.dim + j]!)));
const meanOf = (chains: Float64Array[]): number => chains.reduce((s, c) => s + c.reduce((a, x) => a + x, 0), 0) / chains.reduce((n, c) => n + c.length, 0);

describe("MEADS", () => {
  const run = sample(gaussian, { chains: 256, warmup: 400, draws: 200, seed: 20261207, method: "meads" });

  it("draws the target's means and variances within Monte Carlo error with 256 chains", () => {
    for (let j = 0; j < 3; j++) {
      const x = coordinate(run, j);
      const zMean = (meanOf(x) - MU[j]!) / mcseMean(x);
      const sq = coordinate(run, j, (v) => (v - MU[j]!) ** 2);
      const zVar = (meanOf(sq) - SD[j]! ** 2) / mcseMean(sq);
      expect(Math.abs(zMean), `mean of coordinate ${j}: z ${zMean}`).toBeLessThan(4);
      expect(Math.abs(zVar), `variance of coordinate ${j}: z ${zVar}`).toBeLessThan(4);
    }
  });

  it("adapts one step size and metric in the range the target's scales imply, one leapfrog step a transition", () => {
    const eps = run.adaptation.map((a) => a.stepSize);
    expect(new Set(eps).size).toBe(1);
    const inv = run.adaptation[0]!.invMetric;
    // σ² is the variance over a fold's 64 chains, averaged over the 4 folds: within 30% of the marginal variances.
    for (let j = 0; j < 3; j++) expect(Math.abs(inv[j]! / SD[j]! ** 2 - 1), `inverse metric ${j}: ${inv[j]}`).toBeLessThan(0.3);
    // In the metric's scale the largest eigenvalue of the gradients' second moment is 1/(1 − ρ) = 10: ε ≈ ½/√10 ≈ 0.16.
    expect(eps[0]!).toBeGreaterThan(0.1);
    expect(eps[0]!).toBeLessThan(0.25);
    for (const st of run.stats) expect(st.nLeapfrog.every((n) => n === 1)).toBe(true);
    expect(meanOf(run.stats.map((s) => s.acceptStat))).toBeGreaterThan(0.9);
  });

  it("estimates the largest eigenvalue as tr(Σ²)/tr(Σ) from the rows' products", () => {
    // Rows (1,0), (0,1), (1,1): Σᵢ≠ⱼ (xᵢ·xⱼ)² = 2·(0 + 1 + 1) = 4 over 3·2; Σ‖xᵢ‖² = 4 over 3: (2/3)/(4/3).
    expect(maxEigenvalue([Float64Array.of(1, 0), Float64Array.of(0, 1), Float64Array.of(1, 1)])).toBeCloseTo(0.5, 14);
  });

  it("is reproducible by seed and refuses chains the folds cannot split", () => {
    const small = { chains: 8, warmup: 20, draws: 5, seed: 3, method: "meads" };
    expect(sample(gaussian, small).draws).toEqual(sample(gaussian, small).draws);
    expect(() => sample(gaussian, { ...small, chains: 6 })).toThrow(/a multiple of 4 chains, at least 8/);
  });
});

// y = Xβ + ε, X's three columns N(0, 100²), β = (1, 1, 1), ε ~ N(0, 1), N = 100; parameters (β, log σ),
// flat priors on both: β's posterior is Student's t with N − 3 degrees of freedom around the least
// squares fit, with covariance ν/(ν−2)·s²(XᵀX)⁻¹, s² = SSR/ν (β's sds about 10⁻³).
const N = 100;
const P = 3;
function regressionData(): { x: Float64Array; y: Float64Array } {
  let state = 20261208;
  // mulberry32: a fixed, portable stream for the data.
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  const x = Float64Array.from({ length: N * P }, () => 100 * normal());
  const y = Float64Array.from({ length: N }, (_, n) => x[n * P]! + x[n * P + 1]! + x[n * P + 2]! + normal());
  return { x, y };
}
const { x: X, y: Y } = regressionData();
const regression: BatchedDensity = {
  dim: P + 1,
  logpGrad(q, lp, grad) {
    const d = P + 1;
    for (let c = 0; c < lp.length; c++) {
      const o = c * d;
      const logSigma = q[o + P]!;
      const inv2 = Math.exp(-2 * logSigma);
      let ssr = 0;
      for (let j = 0; j <= P; j++) grad[o + j] = 0;
      for (let n = 0; n < N; n++) {
        let r = Y[n]!;
        for (let j = 0; j < P; j++) r -= X[n * P + j]! * q[o + j]!;
        ssr += r * r;
        for (let j = 0; j < P; j++) grad[o + j] = grad[o + j]! + X[n * P + j]! * r * inv2;
      }
      lp[c] = -N * logSigma - 0.5 * ssr * inv2;
      grad[o + P] = -N + ssr * inv2;
    }
  },
};

// The exact posterior mean and sd of each β: the least squares fit and √(ν/(ν−2)·s²·[(XᵀX)⁻¹]ᵢᵢ).
function regressionPosterior(): { mean: number[]; sd: number[] } {
  const a = Array.from({ length: P }, (_, i) => Array.from({ length: P }, (_, j) => { let s = 0; for (let n = 0; n < N; n++) s += X[n * P + i]! * X[n * P + j]!; return s; }));
  const b = Array.from({ length: P }, (_, i) => { let s = 0; for (let n = 0; n < N; n++) s += X[n * P + i]! * Y[n]!; return s; });
  // (XᵀX)⁻¹ by Gauss–Jordan on [A | I].
  const m = a.map((row, i) => [...row, ...Array.from({ length: P }, (_, j) => (i === j ? 1 : 0))]);
  for (let i = 0; i < P; i++) {
    const pivot = m[i]![i]!;
    for (let j = 0; j < 2 * P; j++) m[i]![j] = m[i]![j]! / pivot;
    for (let k = 0; k < P; k++) if (k !== i) { const f = m[k]![i]!; for (let j = 0; j < 2 * P; j++) m[k]![j] = m[k]![j]! - f * m[i]![j]!; }
  }
  const inv = m.map((row) => row.slice(P));
  const mean = inv.map((row) => row.reduce((s, v, j) => s + v * b[j]!, 0));
  let ssr = 0;
  for (let n = 0; n < N; n++) { let r = Y[n]!; for (let j = 0; j < P; j++) r -= X[n * P + j]! * mean[j]!; ssr += r * r; }
  const nu = N - P;
  return { mean, sd: inv.map((row, i) => Math.sqrt((nu / (nu - 2)) * (ssr / nu) * row[i]!)) };
}

describe("MEADS from random initial points", () => {
  it("reaches a regression posterior whose sds are 10⁻³ and draws its means and sds", () => {
    const run = sample(regression, { chains: 64, warmup: 300, draws: 100, seed: 20261208, method: "meads" });
    const { mean, sd } = regressionPosterior();
    for (let j = 0; j < P; j++) {
      expect(sd[j]!).toBeLessThan(3e-3);
      const x = coordinate(run, j);
      const z = (meanOf(x) - mean[j]!) / mcseMean(x);
      const m = meanOf(x);
      const ratio = Math.sqrt(meanOf(coordinate(run, j, (v) => (v - m) ** 2))) / sd[j]!;
      expect(Math.abs(z), `mean of β${j}: z ${z}`).toBeLessThan(4);
      // The posteriordb rule's bounds on the sd.
      expect(ratio, `sd of β${j}: ratio ${ratio}`).toBeGreaterThan(0.8);
      expect(ratio, `sd of β${j}: ratio ${ratio}`).toBeLessThan(1.25);
    }
  });
});

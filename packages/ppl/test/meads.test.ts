/**
 * MEADS on the inference layer: its draws from a correlated Gaussian with 256 chains have the
 * target's means and variances within Monte Carlo error (fixed seed, |z| ≤ 4 per statistic, the
 * MCSE from the draws' own ESS); its warmup lands the step size, the metric and the damping in the
 * range the target's scales imply; the eigenvalue estimate is the paper's; runs are reproducible;
 * chain counts the folds cannot split are refused.
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

/**
 * ChEES-HMC on the inference layer: its draws from a correlated Gaussian have the target's means
 * and variances within Monte Carlo error (fixed seed, |z| ≤ 4 per statistic, the MCSE from the
 * draws' own ESS); its warmup lands the step size and trajectory length in the range the target's
 * scales imply; every chain of an iteration takes the same number of leapfrog steps; a run is
 * reproducible and the Halton jitter is the base-2 van der Corput sequence.
 */
import { describe, expect, it } from "vitest";
import { mcseMean, sample, type BatchedDensity, type SampleResult } from "../src/index.ts";
import { chees, cheesUniform, halton, type SamplingMethod } from "../src/inference.ts";

// A 2-D Gaussian with means MU, sds SD and correlation RHO, and an independent N(0, 10²) third coordinate.
const MU = [1, -2, 0];
const SD = [1, 2, 10];
const RHO = 0.9;
const gaussian: BatchedDensity = {
  dim: 3,
  logpGrad(q, lp, grad) {
    const n = lp.length;
    const k = 1 / (1 - RHO * RHO);
    for (let c = 0; c < n; c++) {
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

describe("ChEES-HMC", () => {
  const opts = { chains: 64, warmup: 300, draws: 100, seed: 20261207, method: "chees" };
  const run = sample(gaussian, opts);

  it("draws the target's means and variances within Monte Carlo error", () => {
    for (let j = 0; j < 3; j++) {
      const x = coordinate(run, j);
      const zMean = (meanOf(x) - MU[j]!) / mcseMean(x);
      const sq = coordinate(run, j, (v) => (v - MU[j]!) ** 2);
      const zVar = (meanOf(sq) - SD[j]! ** 2) / mcseMean(sq);
      expect(Math.abs(zMean), `mean of coordinate ${j}: z ${zMean}`).toBeLessThan(4);
      expect(Math.abs(zVar), `variance of coordinate ${j}: z ${zVar}`).toBeLessThan(4);
    }
  });

  it("adapts a shared step size, metric and trajectory length in the range the target's scales imply", () => {
    const eps = run.adaptation.map((a) => a.stepSize);
    expect(new Set(eps).size).toBe(1);
    const inv = run.adaptation[0]!.invMetric;
    // The metric is nutpie's √(Var(q)/Var(∇)) over chains: for a Gaussian √(Σᵢᵢ/(Σ⁻¹)ᵢᵢ), the marginal variance
    // times √(1 − ρ²) in the correlated pair and the marginal variance in the third coordinate (64 chains, smoothed: within 30%).
    const expected = [SD[0]! ** 2 * Math.sqrt(1 - RHO * RHO), SD[1]! ** 2 * Math.sqrt(1 - RHO * RHO), SD[2]! ** 2];
    for (let j = 0; j < 3; j++) expect(Math.abs(inv[j]! / expected[j]! - 1), `inverse metric ${j}: ${inv[j]}`).toBeLessThan(0.3);
    // In the metric's scale the narrowest direction has sd √(1 − ρ) ≈ 0.32 of the widest's: ε stays below
    // it, and a trajectory (mean length T/2, so n̄ ≈ T/(2ε) steps) takes more than one step and fewer than 2^10.
    expect(eps[0]!).toBeGreaterThan(0.05);
    expect(eps[0]!).toBeLessThan(1.5);
    const steps = run.stats[0]!.nLeapfrog;
    const meanSteps = steps.reduce((a, b) => a + b, 0) / steps.length;
    expect(meanSteps).toBeGreaterThan(1.5);
    expect(meanSteps).toBeLessThan(200);
    const accept = meanOf(run.stats.map((s) => s.acceptStat));
    expect(accept).toBeGreaterThan(0.5);
  });

  it("every chain of an iteration takes the same number of leapfrog steps", () => {
    for (let i = 0; i < run.drawsDone; i++) {
      const n = run.stats[0]!.nLeapfrog[i]!;
      for (const st of run.stats) if (!st.divergent[i]) expect(st.nLeapfrog[i]).toBe(n);
    }
  });

  it("is reproducible by seed, by name or as itself; uniform jitter draws otherwise", () => {
    const small = { chains: 8, warmup: 30, draws: 10, seed: 3 };
    const a = sample(gaussian, { ...small, method: "chees" });
    expect(sample(gaussian, { ...small, method: chees }).draws).toEqual(a.draws);
    const u = sample(gaussian, { ...small, method: cheesUniform });
    expect(u.draws).not.toEqual(a.draws);
    expect(u.draws.every((d) => d.every(Number.isFinite))).toBe(true);
  });

  it("every chain's start and finish at once (startAll, finishAll) give the chain-by-chain start and finish's bits", () => {
    const small = { chains: 16, warmup: 30, draws: 10, seed: 4 };
    for (const m of [chees, cheesUniform]) {
      const { startAll: _s, finishAll: _f, ...byChain } = m.leapfrogs!;
      const batchWide = sample(gaussian, { ...small, method: m });
      const chainByChain = sample(gaussian, { ...small, method: { ...m, leapfrogs: byChain } });
      expect(chainByChain.draws).toEqual(batchWide.draws);
      expect(chainByChain.stats).toEqual(batchWide.stats);
      expect(chainByChain.adaptation).toEqual(batchWide.adaptation);
    }
  });

  it("chains given inverse metrics of their own keep their own metric objects and adapt to one metric", () => {
    const given = Array.from({ length: 8 }, (_, c) => Float64Array.of(1 + c, 1, 1));
    const r = sample(gaussian, { chains: 8, warmup: 30, draws: 5, seed: 2, method: "chees", invMetric: given });
    for (const a of r.adaptation) expect(Array.from(a.invMetric)).toEqual(Array.from(r.adaptation[0]!.invMetric));
    expect(r.draws.every((d) => d.every(Number.isFinite))).toBe(true);
  });

  it("Halton's base-2 sequence is the van der Corput sequence", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(halton)).toEqual([0.5, 0.25, 0.75, 0.125, 0.625, 0.375, 0.875]);
  });

  it("superchains: the chains of a group start from one point, the groups from different points, whatever the chain range", () => {
    // A method that never moves: its draws are the chains' initial points.
    const still: SamplingMethod<null> = { name: "still", adaptation: null, init: () => null, begin: () => false, advance: () => false, info: () => ({ acceptStat: 1, treeDepth: 0, nLeapfrog: 0, divergent: false, energy: 0 }) };
    const base = { chains: 8, warmup: 0, draws: 1, seed: 9, method: still, superchainSize: 4 };
    const r = sample(gaussian, base);
    for (let c = 1; c < 8; c++) expect(Array.from(r.draws[c]!), `chain ${c}`).toEqual(Array.from(r.draws[c < 4 ? 0 : 4]!));
    expect(Array.from(r.draws[4]!)).not.toEqual(Array.from(r.draws[0]!));
    const upper = sample(gaussian, { ...base, chains: 2, firstChain: 6 });
    expect(Array.from(upper.draws[0]!)).toEqual(Array.from(r.draws[4]!));
  });

  it("adaptation converges on a 10-D Gaussian with scales 1 … 10: the metric, the step size and the trajectory's time", () => {
    const D = 10;
    const sd = Array.from({ length: D }, (_, i) => 10 ** (i / (D - 1)));
    const scaled: BatchedDensity = {
      dim: D,
      logpGrad(q, lp, grad) {
        for (let c = 0; c < lp.length; c++) {
          let s = 0;
          for (let i = 0; i < D; i++) {
            const z = q[c * D + i]! / sd[i]!;
            s += z * z;
            grad[c * D + i] = -z / sd[i]!;
          }
          lp[c] = -0.5 * s;
        }
      },
    };
    const r = sample(scaled, { chains: 128, warmup: 400, draws: 50, seed: 1, method: "chees" });
    // √(Var(q)/Var(∇)) over the chains is sdᵢ² exactly whatever the points (here ∇ᵢ = −qᵢ/sdᵢ²): to rounding.
    r.adaptation[0]!.invMetric.forEach((v, i) => expect(Math.abs(v / sd[i]! ** 2 - 1), `coordinate ${i}`).toBeLessThan(1e-9));
    // Whitened, the target is N(0, I): leapfrog is stable below ε = 2, and a harmonic-mean acceptance of
    // 0.651 in 10 dimensions asks for ε near 1.
    const eps = r.adaptation[0]!.stepSize;
    expect(eps).toBeGreaterThan(0.5);
    expect(eps).toBeLessThan(1.5);
    // An iteration integrates for h·T, on average about T/2 (⌈·⌉ adds up to ε). For N(0, I) the jittered
    // ChEES criterion is ∝ 1/2 − sin(2T)/(4T), whose largest maximum is at T ≈ 2.2 (the next at 5.4):
    // T/2 + ε/2 near 1.1 + 0.45, between 0.8 and 2.
    const st = r.stats[0]!;
    const meanTime = (eps * st.nLeapfrog.reduce((a, b) => a + b, 0)) / st.nLeapfrog.length;
    expect(meanTime).toBeGreaterThan(0.8);
    expect(meanTime).toBeLessThan(2);
  });
});

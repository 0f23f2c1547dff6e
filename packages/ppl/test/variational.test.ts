// ADVI (Stan's meanfield and fullrank) on Gaussian targets, where the best approximation is the
// target itself: the reparameterized ELBO gradient against its closed form within Monte Carlo
// error, the fit's mean and scale within the iterate's stochastic error (√(ρ/2) per coordinate for
// the last step ρ: the stationary spread of stochastic gradient ascent on a quadratic), the
// convergence test stopping the ascent, and the run reproduced by its seed.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { philoxRng } from "../src/index.ts";
import type { Objective } from "../src/optimize/index.ts";
import {
  advi, approximationDraw, checkRelativeChange, elboGradient, fullrank, fullrankCovariance, meanfield, relativeChangeState, VariationalError, type GaussianFamily,
} from "../src/variational/index.ts";

/** −log N(x | m, Σ) up to a constant `offset` (a posterior's normalizing constant: it sets the ELBO's scale, which the relative test divides by). */
function gaussian(m: readonly number[], precision: readonly (readonly number[])[], offset = 0): Objective {
  const n = m.length;
  return {
    dim: n,
    evaluate(x, g) {
      let f = offset;
      for (let i = 0; i < n; i++) {
        let s = 0;
        for (let j = 0; j < n; j++) s += precision[i]![j]! * (x[j]! - m[j]!);
        g[i] = s;
        f += 0.5 * (x[i]! - m[i]!) * s;
      }
      return f;
    },
  };
}
const diagonal = (m: number[], sd: number[], offset = 0): Objective => gaussian(m, sd.map((s, i) => sd.map((_, j) => (i === j ? 1 / s ** 2 : 0))), offset);

// Σ = [[1, 1.6], [1.6, 4]] (correlation 0.8) and its inverse.
const SIGMA = [[1, 1.6], [1.6, 4]];
const DET = 4 - 1.6 ** 2;
const PRECISION = [[4 / DET, -1.6 / DET], [-1.6 / DET, 1 / DET]];

describe("the ELBO gradient", () => {
  // ∇μ ELBO = −P(μ − m); ∇ω_i = 1 − σ_i² P_ii (meanfield); ∇L = lower(−P L) + diag(1/L_ii) (fullrank).
  const cases: [string, GaussianFamily, Float64Array, (p: Float64Array) => number[]][] = [
    ["meanfield", meanfield, Float64Array.of(0.3, -0.5, Math.log(0.7), Math.log(1.9)), (p) => {
      const s = [Math.exp(p[2]!), Math.exp(p[3]!)];
      const mu = [-(PRECISION[0]![0]! * (p[0]! - 1) + PRECISION[0]![1]! * (p[1]! + 2)), -(PRECISION[1]![0]! * (p[0]! - 1) + PRECISION[1]![1]! * (p[1]! + 2))];
      return [...mu, 1 - s[0]! ** 2 * PRECISION[0]![0]!, 1 - s[1]! ** 2 * PRECISION[1]![1]!];
    }],
    ["fullrank", fullrank, Float64Array.of(0.3, -0.5, 0.8, 0.6, 1.5), (p) => {
      const L = [[p[2]!, 0], [p[3]!, p[4]!]];
      const PL = (i: number, j: number) => PRECISION[i]![0]! * L[0]![j]! + PRECISION[i]![1]! * L[1]![j]!;
      const mu = [-(PRECISION[0]![0]! * (p[0]! - 1) + PRECISION[0]![1]! * (p[1]! + 2)), -(PRECISION[1]![0]! * (p[0]! - 1) + PRECISION[1]![1]! * (p[1]! + 2))];
      return [...mu, -PL(0, 0) + 1 / L[0]![0]!, -PL(1, 0), -PL(1, 1) + 1 / L[1]![1]!];
    }],
  ];
  test.each(cases)("%s: the Monte Carlo gradient's mean is the closed form within 4.5 standard errors", (_name, family, params, exact) => {
    const ctx = { objective: gaussian([1, -2], PRECISION), family, rng: philoxRng(5, 0) };
    const draws = 4000;
    const one = new Float64Array(params.length);
    const sum = new Float64Array(params.length);
    const sq = new Float64Array(params.length);
    for (let d = 0; d < draws; d++) {
      elboGradient(ctx, params, 1, one);
      one.forEach((v, i) => { sum[i] = sum[i]! + v; sq[i] = sq[i]! + v * v; });
    }
    exact(params).forEach((want, i) => {
      const mean = sum[i]! / draws;
      const se = Math.sqrt((sq[i]! / draws - mean ** 2) / draws);
      expect(Math.abs(mean - want), `parameter ${i}`).toBeLessThan(4.5 * se + 1e-12);
    });
  });

  test("a density that is nowhere finite is a VariationalError naming the fix", () => {
    const nowhere: Objective = { dim: 1, evaluate: () => Infinity };
    expect(() => advi(nowhere, new Float64Array(1), philoxRng(1, 0))).toThrow(VariationalError);
    expect(() => advi(nowhere, new Float64Array(1), philoxRng(1, 0))).toThrow(/initial approximation.*--init/);
  });
});

describe("advi", () => {
  test("meanfield with Stan's defaults (η adapted) recovers a Gaussian's means and sds within 4 √(ρ/2)", () => {
    const m = [1, -2, 3];
    const sd = [1, 0.5, 3];
    const r = advi(diagonal(m, sd), new Float64Array(3), philoxRng(1, 0));
    m.forEach((want, i) => expect(Math.abs(r.params[i]! - want), `mu ${i}`).toBeLessThan(4 * Math.sqrt(r.lastStep[i]! / 2)));
    sd.forEach((want, i) => expect(Math.abs(r.params[3 + i]! - Math.log(want)), `omega ${i}`).toBeLessThan(4 * Math.sqrt(r.lastStep[3 + i]! / 2)));
  });

  test("fullrank recovers a correlated Gaussian's mean and covariance", () => {
    const r = advi(gaussian([1, -2], PRECISION), new Float64Array(2), philoxRng(2, 0), { algorithm: "fullrank", adaptEngaged: false, eta: 1, tolRelObj: 1e-9 });
    const err = Math.sqrt(Math.max(...r.lastStep) / 2);
    expect(Math.abs(r.params[0]! - 1)).toBeLessThan(4 * err);
    expect(Math.abs(r.params[1]! + 2)).toBeLessThan(4 * err);
    // Σ = L Lᵀ moves by L δLᵀ + δL Lᵀ: at most 2 · 2 · max|L| · |δL| per element for d = 2.
    const cov = fullrankCovariance(r.params, 2);
    const maxL = Math.max(...Array.from(r.params.slice(2), Math.abs));
    SIGMA.flat().forEach((want, k) => expect(Math.abs(cov[k]! - want), `Σ element ${k}`).toBeLessThan(4 * 4 * maxL * err));
    // And the correlation is the target's 0.8.
    expect(cov[1]! / Math.sqrt(cov[0]! * cov[3]!)).toBeGreaterThan(0.7);
  });

  test("the relative ELBO test stops the ascent before --iter on a well-scaled target, and says which criterion", () => {
    const r = advi(diagonal([0.5, -1], [0.3, 2], 500), new Float64Array(2), philoxRng(3, 0));
    expect(r.converged).toBe(true);
    expect(r.iterations).toBeLessThan(10000);
    expect(r.iterations % 100).toBe(0);
    expect(r.message).toMatch(/^converged: the (mean|median) relative ELBO change \S+ is below --tol-rel-obj 0.01$/);
    const last = r.checks[r.checks.length - 1]!;
    expect(last.mean < 0.01 || last.median < 0.01).toBe(true);
    expect(r.checks.slice(0, -1).every((c) => c.mean >= 0.01 && c.median >= 0.01)).toBe(true);
  });

  test("a run that reaches --iter first says so, naming the limit and the criterion", () => {
    const r = advi(diagonal([0.5], [1]), new Float64Array(1), philoxRng(4, 0), { iter: 300, tolRelObj: 1e-12 });
    expect(r.converged).toBe(false);
    expect(r.iterations).toBe(300);
    expect(r.message).toMatch(/maximum number of iterations \(--iter 300\).*--tol-rel-obj 1e-12/);
  });

  test("a seed gives the same fit and draws; another seed another fit", () => {
    const target = diagonal([1, 2], [1, 1], 50);
    const run = (seed: number) => advi(target, new Float64Array(2), philoxRng(seed, 0), { algorithm: "fullrank" });
    const a = run(7);
    const b = run(7);
    expect(Array.from(b.params)).toEqual(Array.from(a.params));
    expect(b.eta).toBe(a.eta);
    expect(approximationDraw(b, philoxRng(7, 1)).x).toEqual(approximationDraw(a, philoxRng(7, 1)).x);
    expect(Array.from(run(8).params)).not.toEqual(Array.from(a.params));
  });
});

describe("the relative ELBO test", () => {
  test("its buffer keeps max(⌊0.1 iter / eval_elbo⌋, 2) changes; the median is Stan's (the upper one for an even count)", () => {
    fc.assert(fc.property(fc.array(fc.double({ min: -1e6, max: -1, noNaN: true }), { minLength: 1, maxLength: 40 }), fc.integer({ min: 100, max: 100000 }), (elbos, iter) => {
      const state = relativeChangeState(iter, 100);
      const capacity = Math.max(Math.floor(iter / 1000), 2);
      let previous = 0;
      const changes: number[] = [];
      for (const e of elbos) {
        const c = checkRelativeChange(state, e, 0.01);
        changes.push(Math.abs((previous - e) / e));
        previous = e;
        const window = changes.slice(-capacity).sort((a, b) => a - b);
        expect(c.median).toBe(window[Math.floor(window.length / 2)]);
        // The mean of up to capacity changes as large as 1e6 (an ELBO of -1 after -1e6), summed in
        // another order than the buffer's: equal to rounding relative to the sum, not to 1e-10 absolute.
        const mean = window.reduce((a, b) => a + b, 0) / window.length;
        expect(Math.abs(c.mean - mean)).toBeLessThanOrEqual(window.length * Number.EPSILON * Math.max(mean, 1e-300) * 4);
      }
      expect(checkRelativeChange(relativeChangeState(iter, 100), -5, 0.01).change).toBe(1);
    }));
  });
});

// LOO-PIT against a case with a closed form: y_i ~ normal(mu, 1) with a flat prior on mu, whose
// leave-one-out predictive of y_i is normal(mean of the others, 1 + 1/(n-1)). Draws are exact
// (iid), from seeded Philox streams, so every tolerance below is a multiple of a Monte Carlo error.
import { describe, expect, it } from "vitest";
import { dkwBand, ksUniform, looPit } from "../src/loo/index.ts";
import { philoxRng } from "../src/random/index.ts";

// Numerical Recipes' erfc (Chebyshev fit, relative error below 1.2e-7): far below the tolerances here.
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}
const Phi = (x: number): number => 0.5 * erfc(-x / Math.SQRT2);

const CHAINS = 4;
const DRAWS = 1000;

/** Posterior draws of mu | y (normal(ybar, 1/n)), with each observation's log-likelihood and a predictive draw, [observation][chain][draw]. */
function normalFit(y: Float64Array, seed: number): { logLik: Float64Array[][]; yRep: Float64Array[][] } {
  const n = y.length;
  const ybar = y.reduce((a, b) => a + b, 0) / n;
  const rng = philoxRng(seed, 1);
  const logLik = Array.from({ length: n }, () => Array.from({ length: CHAINS }, () => new Float64Array(DRAWS)));
  const yRep = Array.from({ length: n }, () => Array.from({ length: CHAINS }, () => new Float64Array(DRAWS)));
  for (let c = 0; c < CHAINS; c++) {
    for (let s = 0; s < DRAWS; s++) {
      const mu = ybar + rng.normal() / Math.sqrt(n);
      for (let i = 0; i < n; i++) {
        logLik[i]![c]![s] = -0.5 * (y[i]! - mu) ** 2 - 0.5 * Math.log(2 * Math.PI);
        yRep[i]![c]![s] = mu + rng.normal();
      }
    }
  }
  return { logLik, yRep };
}

describe("looPit", () => {
  it("equals the closed-form leave-one-out PIT of a normal mean within Monte Carlo error, and its values are uniform", () => {
    const n = 60;
    const rng = philoxRng(7);
    const y = Float64Array.from({ length: n }, () => rng.normal());
    const { logLik, yRep } = normalFit(y, 8);
    const { pit, paretoK } = looPit(logLik, yRep, y);
    const sum = y.reduce((a, b) => a + b, 0);
    // Leaving one of 60 out moves the posterior by a 60th of its variance: the weights are near
    // uniform, so their effective size is near S; S/2 bounds it from below with room to spare.
    const essLow = (CHAINS * DRAWS) / 2;
    for (let i = 0; i < n; i++) {
      const exact = Phi((y[i]! - (sum - y[i]!) / (n - 1)) / Math.sqrt(1 + 1 / (n - 1)));
      // 5 Monte Carlo standard errors: a false alarm somewhere among 60 observations has odds below 1e-4.
      const tol = 5 * Math.sqrt(Math.max(exact * (1 - exact), 0.01) / essLow);
      expect(Math.abs(pit[i]! - exact), `observation ${i + 1}: ${pit[i]} vs ${exact}`).toBeLessThan(tol);
      expect(paretoK[i]!).toBeLessThan(0.5);
    }
    // The exact PITs of a model that generated the data are uniform (each marginally, nearly
    // independent): the KS distance stays inside the DKW band at level 1e-3, plus the Monte Carlo error.
    expect(ksUniform(pit)).toBeLessThan(dkwBand(n, 1e-3) + 5 * Math.sqrt(0.25 / essLow));
  });

  it("randomizes ties of discrete data, so the PIT of counts drawn from the predictive distribution is uniform", () => {
    // Poisson(1) counts, scored against Poisson(1) predictive draws with equal weights (a constant log-likelihood).
    const n = 400;
    const rng = philoxRng(11);
    const poisson = (lambda: number): number => {
      let k = 0;
      let p = rng.uniform();
      while (p > Math.exp(-lambda)) {
        p *= rng.uniform();
        k++;
      }
      return k;
    };
    const y = Float64Array.from({ length: n }, () => poisson(1));
    const S = 2000;
    const logLik = Array.from({ length: n }, () => [new Float64Array(S)]);
    const yRep = Array.from({ length: n }, () => [Float64Array.from({ length: S }, () => poisson(1))]);
    const { pit } = looPit(logLik, yRep, y, { seed: 3 });
    expect(Math.min(...pit)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...pit)).toBeLessThanOrEqual(1);
    // The PIT given the draws' ECDF is off the exact one by ≈ sqrt(p(1-p)/S) ≤ 0.5/sqrt(S).
    expect(ksUniform(pit)).toBeLessThan(dkwBand(n, 1e-3) + 5 * 0.5 / Math.sqrt(S));
    // Without the randomization, P(y_rep ≤ y) of counts is far from uniform: the check above has power.
    const plain = Float64Array.from(y, (v, i) => yRep[i]![0]!.filter((r) => r <= v).length / S);
    expect(ksUniform(plain)).toBeGreaterThan(dkwBand(n, 1e-3) + 5 * 0.5 / Math.sqrt(S));
  });

  it("gives the same values for the same seed and refuses mismatched inputs", () => {
    const y = Float64Array.from([0.1, -0.4, 1.2]);
    const { logLik, yRep } = normalFit(y, 2);
    expect(looPit(logLik, yRep, y).pit).toEqual(looPit(logLik, yRep, y).pit);
    expect(() => looPit(logLik.slice(1), yRep, y)).toThrow(/3 observations, 2 log-likelihood entries/);
  });
});

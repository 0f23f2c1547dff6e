import { describe, expect, test } from "vitest";
import { constant, param } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/internals";
import {
  bernoulli, bernoulliLogit, beta, betaBinomial, binomial, binomialLogit, categorical, categoricalLogit, cauchy, chiSquared, dirichlet,
  exponential, gamma, gaussianRandomWalk, halfCauchy, halfNormal, halfStudentT, inverseGamma, laplace, lkjCholesky, logistic, logNormal,
  mixture, multinomial, multivariateNormal, multivariateNormalCholesky, multivariateNormalPrecision, negativeBinomial, negativeBinomial2,
  normal, poisson, poissonLog, skewNormal, studentT, truncatedNormal, uniform, weibull, philoxRng, type Distribution,
} from "../src/index.ts";
import { evaluate } from "./distributions-helpers.ts";

const N = 20000;

/** Per-entry sample mean and variance against the closed forms, each within 4 Monte Carlo standard errors. */
function checkMoments(name: string, d: Distribution, seed: number): void {
  const draws = d.sample(philoxRng(seed), [N]);
  const e = sizeOf([...d.batchShape, ...d.eventShape]);
  expect(draws.shape).toEqual([N, ...d.batchShape, ...d.eventShape]);
  const mu = evaluate(d.mean!());
  const v = evaluate(d.variance!());
  for (let j = 0; j < e; j++) {
    let m = 0;
    for (let i = 0; i < N; i++) m += draws.data[i * e + j]!;
    m /= N;
    let s2 = 0, m4 = 0;
    for (let i = 0; i < N; i++) {
      const dv = draws.data[i * e + j]! - m;
      s2 += dv * dv;
      m4 += dv ** 4;
    }
    s2 /= N - 1;
    m4 /= N;
    const zMean = (m - mu[j]!) / Math.sqrt(v[j]! / N);
    const seVar = Math.sqrt(Math.max(m4 - s2 * s2, 1e-300) / N);
    const zVar = v[j]! === 0 ? 0 : (s2 - v[j]!) / seVar;
    if (!(Math.abs(zMean) <= 4 && Math.abs(zVar) <= 4)) {
      throw new Error(`${name}[${j}]: mean ${m} vs ${mu[j]} (z=${zMean.toFixed(2)}), variance ${s2} vs ${v[j]} (z=${zVar.toFixed(2)})`);
    }
  }
}

const vec = (xs: number[]) => constant(xs, [xs.length]);

const cases: [string, Distribution][] = [
  ["normal", normal(1, 2)],
  ["normal batched", normal(vec([0, 10, -3]), vec([1, 0.5, 4]))],
  ["halfNormal", halfNormal(1.5)],
  ["studentT", studentT(10, 1, 2)],
  ["halfStudentT", halfStudentT(10, 2)],
  ["laplace", laplace(1, 2)],
  ["logistic", logistic(1, 0.7)],
  ["logNormal", logNormal(0.3, 0.4)],
  ["exponential", exponential(1.5)],
  ["gamma small shape", gamma(0.3, 2)],
  ["gamma", gamma(3.5, 1.2)],
  ["inverseGamma", inverseGamma(6, 2)],
  ["beta small", beta(0.4, 0.6)],
  ["beta", beta(3, 5)],
  ["uniform", uniform(-1, 3)],
  ["weibull", weibull(1.7, 2)],
  ["chiSquared", chiSquared(4)],
  ["truncatedNormal interval", truncatedNormal(0.5, 1.2, { lower: 0, upper: 2 })],
  ["truncatedNormal upper tail", truncatedNormal(0, 1, { lower: 2.5 })],
  ["truncatedNormal upper only", truncatedNormal(1, 2, { upper: 0 })],
  ["skewNormal", skewNormal(1, 2, 3)],
  ["bernoulli", bernoulli(0.3)],
  ["bernoulliLogit", bernoulliLogit(-1)],
  ["binomial", binomial(20, 0.3)],
  ["binomial large n", binomial(500, 0.62)],
  ["binomialLogit", binomialLogit(10, 0.5)],
  ["betaBinomial", betaBinomial(12, 2, 3)],
  ["poisson", poisson(3.5)],
  ["poisson large rate", poisson(180)],
  ["poissonLog", poissonLog(1.2)],
  ["negativeBinomial", negativeBinomial(3, 0.5)],
  ["negativeBinomial2", negativeBinomial2(4, 2.5)],
  ["categorical", categorical(vec([0.2, 0.5, 0.3]))],
  ["categoricalLogit", categoricalLogit(vec([0, 1, -1, 2]))],
  ["multinomial", multinomial(vec([0.2, 0.5, 0.3]), 10)],
  ["dirichlet", dirichlet(vec([0.5, 2, 3]))],
  ["multivariateNormal", multivariateNormal(vec([1, -1]), constant([2, 0.8, 0.8, 1], [2, 2]))],
  ["multivariateNormalPrecision", multivariateNormalPrecision(vec([1, -1]), constant([2, 0.8, 0.8, 1], [2, 2]))],
  ["multivariateNormalCholesky", multivariateNormalCholesky(vec([0, 2]), constant([1.5, 0, -0.5, 0.7], [2, 2]))],
  ["gaussianRandomWalk", gaussianRandomWalk(0.5, 5)],
  ["mixture of a list", mixture([0.3, 0.7], [normal(-2, 1), gamma(2, 1)])],
  ["mixture of a batch", mixture(vec([0.6, 0.4]), normal(vec([0, 5]), vec([1, 2])))],
];

describe("sample moments match the closed-form mean and variance (20000 draws, |z| ≤ 4)", () => {
  cases.forEach(([name, d], k) => test(name, () => checkMoments(name, d, 1000 + k)));
});

describe("distributions without moments, and structured draws", () => {
  test("cauchy and halfCauchy: empirical CDF at fixed points", () => {
    const check = (d: Distribution, cdf: (x: number) => number, pts: number[]) => {
      const draws = d.sample(philoxRng(77), [N]).data;
      for (const q of pts) {
        let below = 0;
        for (const v of draws) if (v <= q) below++;
        const p = cdf(q);
        expect(Math.abs(below / N - p) / Math.sqrt((p * (1 - p)) / N)).toBeLessThan(4);
      }
    };
    check(cauchy(1, 2), (x) => 0.5 + Math.atan((x - 1) / 2) / Math.PI, [-5, 0, 1, 3, 10]);
    check(halfCauchy(2), (x) => (2 / Math.PI) * Math.atan(x / 2), [0.5, 2, 8]);
  });
  test("LKJ Cholesky draws are correlation factors with Var(r_ij) = 1/(2η + K − 1)", () => {
    const k = 4, eta = 1.5;
    const draws = lkjCholesky(k, eta).sample(philoxRng(5), [5000]);
    expect(draws.shape).toEqual([5000, k, k]);
    const r: number[] = [];
    for (let s = 0; s < 5000; s++) {
      const L = draws.data.subarray(s * k * k, (s + 1) * k * k);
      for (let i = 0; i < k; i++) {
        let norm = 0;
        for (let j = 0; j < k; j++) {
          norm += L[i * k + j]! ** 2;
          if (j > i) expect(L[i * k + j]).toBe(0);
        }
        expect(norm).toBeCloseTo(1, 12);
      }
      r.push(L[1 * k + 0]!); // r_21 = L21
      r.push(L[3 * k + 0]! * L[2 * k + 0]! + L[3 * k + 1]! * L[2 * k + 1]! + L[3 * k + 2]! * L[2 * k + 2]!); // r_43
    }
    const want = 1 / (2 * eta + k - 1);
    const m2 = r.reduce((a, b) => a + b * b, 0) / r.length;
    const m1 = r.reduce((a, b) => a + b, 0) / r.length;
    expect(Math.abs(m1) / Math.sqrt(want / r.length)).toBeLessThan(4);
    // Var of r² for Beta(a,a) on (−1,1): E r⁴ − (E r²)², with E r⁴ = 3/((2a+1)(2a+3)), a = η − 1 + K/2.
    const a = eta - 1 + k / 2;
    const varR2 = 3 / ((2 * a + 1) * (2 * a + 3)) - want * want;
    expect(Math.abs(m2 - want) / Math.sqrt(varR2 / r.length)).toBeLessThan(4);
  });
  test("parameters that are graph nodes are evaluated with bindings; sample shape leads", () => {
    const mu = param("mu", [2]);
    const d = normal(mu, 0.1);
    const draws = d.sample(philoxRng(9), [3, 4], { mu: [5, -5] });
    expect(draws.shape).toEqual([3, 4, 2]);
    for (let i = 0; i < 12; i++) {
      expect(Math.abs(draws.data[2 * i]! - 5)).toBeLessThan(1);
      expect(Math.abs(draws.data[2 * i + 1]! + 5)).toBeLessThan(1);
    }
  });
  test("the same seed gives the same draws", () => {
    const a = gamma(2, 3).sample(philoxRng(42), [100]).data;
    const b = gamma(2, 3).sample(philoxRng(42), [100]).data;
    expect(Array.from(a)).toEqual(Array.from(b));
  });
});

// Samplers of Stan's core distributions (issue 13, item 2): moments of draws from the Philox streams
// against the closed-form mean and variance, with fixed seeds and tolerances from the Monte Carlo error.
import { describe, expect, test } from "vitest";
import { constant } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/internals";
import {
  betaNegativeBinomial, betaProportion, dirichletMultinomial, discreteUniform, expModNormal, frechet, gumbel, hurdleNegativeBinomial,
  hurdlePoisson, hypergeometric, inverseChiSquared, inverseWishart, inverseWishartCholesky, lkjCorr, lkjCov, logLogistic, matrixNormalPrecision,
  multiGP, multiGPCholesky, multiStudentT, multiStudentTCholesky, orderedLogistic, orderedProbit, pareto, paretoType2, philoxRng,
  poissonBinomial, poissonLogNormal, rayleigh, scaledInverseChiSquared, skewDoubleExponential, vonMises, wishart, wishartCholesky,
  zeroInflatedNegativeBinomial, zeroInflatedPoisson, type Distribution,
} from "../src/index.ts";
import { evaluate } from "./distributions-helpers.ts";

const N = 20000;
const vec = (xs: number[]) => constant(xs, [xs.length]);
const mat = (rows: number[][]) => constant(rows.flat(), [rows.length, rows[0]!.length]);

/** z-scores of the sample mean and variance of each event entry of `draws` against `mu` and `v`. */
function momentZ(data: ArrayLike<number>, n: number, e: number, mu: ArrayLike<number>, v: ArrayLike<number>, j: number): [number, number, number, number] {
  let m = 0;
  for (let i = 0; i < n; i++) m += data[i * e + j]!;
  m /= n;
  let s2 = 0, m4 = 0;
  for (let i = 0; i < n; i++) {
    const dv = data[i * e + j]! - m;
    s2 += dv * dv;
    m4 += dv ** 4;
  }
  s2 /= n - 1;
  m4 /= n;
  const zMean = v[j]! === 0 ? (m === mu[j]! ? 0 : Infinity) : (m - mu[j]!) / Math.sqrt(v[j]! / n);
  const seVar = Math.sqrt(Math.max(m4 - s2 * s2, 1e-300) / n);
  const zVar = v[j]! === 0 ? (s2 < 1e-20 ? 0 : Infinity) : (s2 - v[j]!) / seVar;
  return [m, s2, zMean, zVar];
}

/** Per-entry sample mean and variance against the closed forms, each within 4 Monte Carlo standard errors. */
function checkMoments(name: string, d: Distribution, seed: number): void {
  const draws = d.sample(philoxRng(seed), [N]);
  const e = sizeOf([...d.batchShape, ...d.eventShape]);
  expect(draws.shape).toEqual([N, ...d.batchShape, ...d.eventShape]);
  const mu = evaluate(d.mean!());
  const v = evaluate(d.variance!());
  for (let j = 0; j < e; j++) {
    const [m, s2, zMean, zVar] = momentZ(draws.data, N, e, mu, v, j);
    if (!(Math.abs(zMean) <= 4 && Math.abs(zVar) <= 4)) {
      throw new Error(`${name}[${j}]: mean ${m} vs ${mu[j]} (z=${zMean.toFixed(2)}), variance ${s2} vs ${v[j]} (z=${zVar.toFixed(2)})`);
    }
  }
}

const S2 = mat([[2, 0.6], [0.6, 1]]);
const L2 = mat([[1.4, 0], [0.4, 0.9]]);

// Shape parameters are large enough that the fourth moment, which the variance's standard error needs, is finite.
const cases: [string, Distribution][] = [
  ["orderedLogistic", orderedLogistic(0.4, vec([-1, 0.2, 1.5]))],
  ["orderedLogistic batched", orderedLogistic(vec([-2, 0, 3]), vec([-0.5, 0.5]))],
  ["orderedProbit", orderedProbit(-0.3, vec([-1, 0.2, 1.5]))],
  ["multiStudentT", multiStudentT(9, vec([1, -1]), S2)],
  ["multiStudentTCholesky", multiStudentTCholesky(9, mat([[0, 2], [1, 1]]), L2)],
  ["wishart", wishart(5, S2)],
  ["inverseWishart", inverseWishart(14, S2)],
  ["lkjCorr", lkjCorr(3, 2)],
  ["lkjCov", lkjCov(vec([0.1, -0.3, 0.2]), 0.25, 1.5, 3)],
  ["pareto", pareto(1.5, 9)],
  ["paretoType2", paretoType2(-1, 2, 9)],
  ["gumbel", gumbel(1, 2)],
  ["frechet", frechet(9, 2)],
  ["rayleigh", rayleigh(1.5)],
  ["expModNormal", expModNormal(1, 0.7, 0.8)],
  ["skewDoubleExponential", skewDoubleExponential(1, 2, 0.2)],
  ["inverseChiSquared", inverseChiSquared(14)],
  ["scaledInverseChiSquared", scaledInverseChiSquared(14, 1.5)],
  ["logLogistic", logLogistic(2, 10)],
  ["betaProportion", betaProportion(0.3, 8)],
  ["discreteUniform", discreteUniform(-2, 7)],
  ["hypergeometric", hypergeometric(12, 9, 15)],
  ["betaNegativeBinomial", betaNegativeBinomial(3, 12, 4)],
  ["zeroInflatedPoisson", zeroInflatedPoisson(0.3, 4)],
  ["zeroInflatedNegativeBinomial", zeroInflatedNegativeBinomial(0.25, 5, 2)],
  ["hurdlePoisson", hurdlePoisson(0.4, 3)],
  ["hurdlePoisson near-certain zero (inversion)", hurdlePoisson(0.4, 0.05)],
  ["hurdleNegativeBinomial", hurdleNegativeBinomial(0.3, 4, 1.5)],
  ["hurdleNegativeBinomial near-certain zero (inversion)", hurdleNegativeBinomial(0.3, 0.1, 0.5)],
  ["dirichletMultinomial", dirichletMultinomial(vec([0.7, 2, 3.5]), 10)],
  ["poissonLogNormal", poissonLogNormal(0.5, 0.4)],
  ["poissonBinomial", poissonBinomial(vec([0.1, 0.5, 0.93, 0.27]))],
  ["multiGP", multiGP(S2, vec([0.5, 2, 1.3]))],
  ["multiGPCholesky", multiGPCholesky(L2, vec([0.5, 2]))],
  ["matrixNormalPrecision", matrixNormalPrecision(mat([[0, 1], [2, -1], [0.5, 0.5]]), mat([[2, 0.3, 0], [0.3, 1, -0.2], [0, -0.2, 1.5]]), S2)],
];

describe("sample moments match the closed-form mean and variance (20000 draws, |z| ≤ 4)", () => {
  cases.forEach(([name, d], k) => test(name, () => checkMoments(name, d, 5000 + k)));
});

describe("draws without closed-form moments, and draws' supports", () => {
  test("vonMises: draws in [mu − π, mu + π], mean mu, E cos(y − mu) = I1(κ)/I0(κ), for small, moderate and huge κ", () => {
    // I1/I0 from scipy.special (i1(κ)/i0(κ)); κ = 1e8 takes the normal limit, κ = 1e−9 the uniform one.
    for (const [kappa, ratio, seed] of [[0.5, 0.24249961258080202, 1], [2, 0.6977746579640083, 2], [50, 0.9899489673784979, 3], [1e8, 1 - 0.5e-8, 4], [1e-9, 0, 5]] as const) {
      const mu = 0.7;
      const draws = vonMises(mu, kappa).sample(philoxRng(600 + seed), [N]).data;
      let c = 0, c2 = 0, m = 0, m2 = 0;
      for (const y of draws) {
        expect(y).toBeGreaterThanOrEqual(mu - Math.PI);
        expect(y).toBeLessThanOrEqual(mu + Math.PI);
        const cy = Math.cos(y - mu);
        c += cy;
        c2 += cy * cy;
        m += y - mu;
        m2 += (y - mu) ** 2;
      }
      c /= N;
      m /= N;
      const sdCos = Math.sqrt(Math.max(c2 / N - c * c, 1e-30) / N);
      const sdMean = Math.sqrt(Math.max(m2 / N - m * m, 1e-30) / N);
      expect(Math.abs(c - ratio) / sdCos, `κ=${kappa}: E cos ${c} vs ${ratio}`).toBeLessThan(4);
      expect(Math.abs(m) / sdMean, `κ=${kappa}: mean offset ${m}`).toBeLessThan(4);
    }
  });

  test("wishartCholesky and inverseWishartCholesky: lower-triangular factors whose products have the Wishart and inverse-Wishart moments", () => {
    const pairs: [string, Distribution, Distribution][] = [
      ["wishartCholesky", wishartCholesky(5, L2), wishart(5, mat([[1.96, 0.56], [0.56, 0.97]]))],
      ["inverseWishartCholesky", inverseWishartCholesky(14, L2), inverseWishart(14, mat([[1.96, 0.56], [0.56, 0.97]]))],
    ];
    pairs.forEach(([name, d, full], s) => {
      const draws = d.sample(philoxRng(700 + s), [N]).data;
      const products = new Float64Array(N * 4);
      for (let i = 0; i < N; i++) {
        const [a, b, c, e] = [draws[4 * i]!, draws[4 * i + 1]!, draws[4 * i + 2]!, draws[4 * i + 3]!];
        expect(b).toBe(0);
        expect(a).toBeGreaterThan(0);
        expect(e).toBeGreaterThan(0);
        products.set([a * a, a * c, a * c, c * c + e * e], 4 * i);
      }
      const mu = evaluate(full.mean!()), v = evaluate(full.variance!());
      for (let j = 0; j < 4; j++) {
        const [m, s2, zMean, zVar] = momentZ(products, N, 4, mu, v, j);
        expect(Math.abs(zMean) <= 4 && Math.abs(zVar) <= 4, `${name}[${j}]: mean ${m} vs ${mu[j]}, variance ${s2} vs ${v[j]}`).toBe(true);
      }
    });
  });

  test("matrix draws lie in their supports: symmetric positive-definite (Wishart), unit diagonal (LKJ)", () => {
    const w = wishart(3, S2).sample(philoxRng(11), [200]).data;
    const r = lkjCorr(4, 0.8).sample(philoxRng(12), [200]).data;
    for (let i = 0; i < 200; i++) {
      const [a, b, c, d] = w.subarray(4 * i, 4 * i + 4);
      expect(b).toBeCloseTo(c!, 12);
      expect(a! > 0 && a! * d! - b! * c! > 0).toBe(true);
      for (let j = 0; j < 4; j++) expect(r[16 * i + 5 * j]).toBeCloseTo(1, 12);
    }
  });

  test("moments that do not exist are +∞ or NaN, as for the existing families", () => {
    expect(evaluate(pareto(1, 0.8).mean!())[0]).toBe(Infinity);
    expect(evaluate(frechet(1.5, 1).variance!())[0]).toBe(Infinity);
    expect(evaluate(betaNegativeBinomial(2, 1.5, 3).variance!())[0]).toBe(Infinity);
    expect(Array.from(evaluate(inverseWishart(2.5, S2).mean!()))).toEqual([Infinity, Infinity, Infinity, Infinity]);
    expect(Array.from(evaluate(inverseWishart(4.5, S2).variance!()))).toEqual([Infinity, Infinity, Infinity, Infinity]);
    expect(Number.isNaN(evaluate(multiStudentT(0.8, vec([0, 0]), S2).mean!())[0])).toBe(true);
  });

  test("the same seed gives the same draws", () => {
    const a = hurdleNegativeBinomial(0.3, 4, 1.5).sample(philoxRng(42), [100]).data;
    const b = hurdleNegativeBinomial(0.3, 4, 1.5).sample(philoxRng(42), [100]).data;
    expect(Array.from(a)).toEqual(Array.from(b));
  });
});

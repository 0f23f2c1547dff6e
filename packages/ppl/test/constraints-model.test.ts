// The matrix, offset/multiplier, sum-to-zero and stochastic constraints inside models: which
// constraint a prior's support picks, the non-centred parameterisation's log density, user inits
// through the inverse, and exact prior draws (within 4 Monte Carlo standard errors, fixed seeds).
import { describe, expect, test } from "vitest";
import { constant, exp } from "@ppl/tensor";
import {
  columnStochastic, compileModel, corrMatrix, covMatrix, gamma, inverseWishart, lkjCorr, model, normal, offsetMultiplier,
  priorSampler, rowStochastic, sumToZero, wishartCholesky, type CompiledModel, type ModelBuilder,
} from "../src/index.ts";

const EYE3 = constant([1, 0, 0, 0, 1, 0, 0, 0, 1], [3, 3]);

/** A model without data. */
function compiled(build: (m: ModelBuilder) => void): CompiledModel {
  return compileModel(model({ name: "c", data: {}, build }), {});
}

/** n prior draws of chain 0 of one column of constrainedNames(). */
function priorColumn(c: CompiledModel, seed: number, n: number, name: string): Float64Array {
  const s = priorSampler(c, seed);
  const j = c.constrainedNames().indexOf(name);
  expect(j, name).toBeGreaterThanOrEqual(0);
  return Float64Array.from({ length: n }, (_, i) => s.at(0, i)[j]!);
}

/**
 * |mean − mu| within 4 standard errors, and (unless meanOnly, for heavy tails) |sd − sd_true| within
 * 6 of the normal approximation's standard errors, the 1.5 allowing for kurtosis.
 */
function expectMoments(xs: Float64Array, mu: number, sd: number, meanOnly = false): void {
  const n = xs.length;
  const m = xs.reduce((a, b) => a + b, 0) / n;
  const s = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (n - 1));
  expect(Math.abs(m - mu) / (sd / Math.sqrt(n)), `mean ${m} vs ${mu}`).toBeLessThan(4);
  if (!meanOnly) expect(Math.abs(s - sd) / (sd / Math.sqrt(2 * n)), `sd ${s} vs ${sd}`).toBeLessThan(4 * 1.5);
}

describe("constraints in models", () => {
  test("a matrix prior's support picks its constraint: inverse Wishart → cov_matrix, LKJ → corr_matrix, Cholesky Wishart → cholesky_factor_cov", () => {
    const c = compiled((m) => {
      m.param("S", inverseWishart(5, EYE3));
      m.param("R", lkjCorr(3, 2));
      m.param("L", wishartCholesky(5, EYE3));
    });
    expect(c.paramInfo.map((p) => [p.name, p.transform, p.unconstrainedSize])).toEqual([
      ["S", "cov_matrix", 6],
      ["R", "corr_matrix", 3],
      ["L", "cholesky_factor_cov", 6],
    ]);
  });

  test("offsetMultiplier(mu, tau) with normal(mu, tau) has the log density of a standard normal in u, as the hand-written non-centred model", () => {
    const nonCentred = compiled((m) => {
      const mu = m.param("mu", normal(0, 1));
      const tau = m.param("tau", gamma(2, 2));
      m.param("theta", normal(mu, tau), { shape: [4], constraint: offsetMultiplier(mu, tau) });
    });
    const byHand = compiled((m) => {
      m.param("mu", normal(0, 1));
      m.param("tau", gamma(2, 2));
      m.param("theta_raw", normal(0, 1), { shape: [4] });
    });
    expect(nonCentred.paramInfo.map((p) => p.transform)).toEqual(["real", "positive", "offset_multiplier"]);
    for (let s = 0; s < 5; s++) {
      const q = Array.from({ length: 6 }, (_, i) => Math.sin(3 * s + 1.7 * i) * 2);
      expect(nonCentred.logDensityAt(q)).toBeCloseTo(byHand.logDensityAt(q), 11);
      // theta = mu + tau·u.
      const x = nonCentred.generatedAt(q);
      for (let i = 0; i < 4; i++) expect(x[2 + i]).toBeCloseTo(q[0]! + Math.exp(q[1]!) * q[2 + i]!, 12);
    }
  });

  test("user inits go through the inverse: unconstrain then constrain gives the values back", () => {
    const c = compiled((m) => {
      m.param("S", { shape: [2, 2], constraint: covMatrix() });
      m.param("R", { shape: [2, 2], constraint: corrMatrix() });
      m.param("z", normal(0, 1), { shape: [3], constraint: sumToZero() });
      m.param("P", { shape: [2, 2], constraint: columnStochastic() });
    });
    const init = { S: [[2, 0.5], [0.5, 1]], R: [[1, -0.3], [-0.3, 1]], z: [0.5, -1.5, 1], P: [[0.25, 0.9], [0.75, 0.1]] };
    const back = c.generatedAt(c.unconstrain(init));
    // Stan's order: first index fastest.
    const want = [2, 0.5, 0.5, 1, 1, -0.3, -0.3, 1, 0.5, -1.5, 1, 0.25, 0.75, 0.9, 0.1];
    want.forEach((v, i) => expect(back[i]).toBeCloseTo(v, 12));
    expect(() => c.unconstrain({ ...init, S: [[1, 2], [2, 1]] })).toThrow(/'S' = .* violates its constraint \(cov_matrix\)/);
  });

  test("prior draws: flat corr_matrix is LKJ(1), flat stochastic matrices Dirichlet(1) rows or columns, inverse Wishart as drawn", () => {
    const n = 4000;
    const c = compiled((m) => {
      m.param("R", { shape: [3, 3], constraint: corrMatrix() });
      m.param("P", { shape: [2, 3], constraint: rowStochastic() });
      m.param("Q", { shape: [3, 2], constraint: columnStochastic() });
      m.param("S", inverseWishart(7, EYE3));
    });
    // LKJ(1) on 3×3: (R_ij + 1)/2 ~ Beta(1.5, 1.5), mean 0, variance 1/4.
    expectMoments(priorColumn(c, 5, n, "R[2,1]"), 0, 0.5);
    // Dirichlet(1, 1, 1): Beta(1, 2), mean 1/3, sd √2/6.
    expectMoments(priorColumn(c, 5, n, "P[1,2]"), 1 / 3, Math.SQRT2 / 6);
    expectMoments(priorColumn(c, 5, n, "Q[2,1]"), 1 / 3, Math.SQRT2 / 6);
    const q1 = priorColumn(c, 5, n, "Q[1,2]"), q2 = priorColumn(c, 5, n, "Q[2,2]"), q3 = priorColumn(c, 5, n, "Q[3,2]");
    q1.forEach((v, i) => expect(Math.abs(v + q2[i]! + q3[i]! - 1)).toBeLessThan(1e-14));
    // Inverse Wishart(7, I): mean I/3, Var(S_11) = 2/((nu − K − 1)²(nu − K − 3)) = 1/9; its fourth
    // moment is infinite, so only the mean is checked.
    expectMoments(priorColumn(c, 5, n, "S[1,1]"), 1 / 3, 1 / 3, true);
  });

  test("prior draws of an offset/multiplier parameter whose offset and multiplier are other parameters", () => {
    const c = compiled((m) => {
      const mu = m.param("mu", normal(1, 0.5));
      const logTau = m.param("log_tau", normal(0, 0.25));
      const tau = exp(logTau);
      m.param("theta", normal(mu, tau), { constraint: offsetMultiplier(mu, tau) });
    });
    // theta = mu + tau·z: mean 1, variance 0.25 + E[tau²] = 0.25 + exp(2·0.25²).
    expectMoments(priorColumn(c, 9, 4000, "theta"), 1, Math.sqrt(0.25 + Math.exp(2 * 0.0625)));
  });

  test("a sum-to-zero vector has no exact prior draw, and the error says why", () => {
    const c = compiled((m) => void m.param("z", normal(0, 1), { shape: [3], constraint: sumToZero() }));
    expect(() => priorSampler(c, 1)).toThrow(/'z' is a sum-to-zero vector, whose prior is normal restricted to the hyperplane Σx = 0, which no sampler draws exactly/);
  });
});

// The pointwise log-likelihood from constrained draws: one value per observed element, observe
// terms in declaration order, elements row-major, computed from draws stored in Stan's order.
import { describe, expect, it } from "vitest";
import { constant, exp, mul } from "@ppl/tensor";
import {
  compileModel, data, halfNormal, logLikEvaluator, loo, model, ModelError, multivariateNormal, normal, poisson, pointwiseLogLik,
} from "../src/index.ts";

const lnorm = (x: number, m: number, s: number) => -0.5 * ((x - m) / s) ** 2 - Math.log(s) - 0.5 * Math.log(2 * Math.PI);
const lfact = (k: number): number => (k <= 1 ? 0 : Math.log(k) + lfact(k - 1));
const lpois = (k: number, rate: number) => k * Math.log(rate) - rate - lfact(k);

// A matrix parameter (stored column-major in the draws, as Stan writes it), a positive one, and
// three observe terms: a matrix, an integer vector and a multivariate normal (one value per row).
const example = model({
  name: "pointwise",
  data: { Y: data.matrix(2, 3), k: data.intVector(2), Z: data.matrix(2, 2) },
  build(m, d) {
    const B = m.param("B", normal(0, 3), { shape: [2, 3] });
    const s = m.param("s", halfNormal(2));
    const mu = m.param("mu", normal(0, 1));
    m.observe(d.Y, normal(B, s));
    m.observe(d.k, poisson(exp(mu)));
    m.observe(d.Z, multivariateNormal(mul(mu, constant([1, 1], [2])), constant([1, 0.5, 0.5, 2], [2, 2])));
    m.deterministic("rate", exp(mu));
  },
});
const DATA = { Y: [[0.1, -0.4, 2], [1.5, 0.3, -1]], k: [3, 0], Z: [[0.2, -0.1], [1.4, 0.9]] };

// Bivariate normal with covariance [[1, .5], [.5, 2]] (determinant 1.75).
function lmvn(z: readonly number[], mu: number): number {
  const a = z[0]! - mu, b = z[1]! - mu;
  const quad = (2 * a * a - 2 * 0.5 * a * b + 1 * b * b) / 1.75;
  return -0.5 * quad - 0.5 * Math.log(1.75) - Math.log(2 * Math.PI);
}

function expected(B: number[][], s: number, mu: number): number[] {
  const rows = DATA.Y.flatMap((row, i) => row.map((y, j) => lnorm(y, B[i]![j]!, s)));
  return [...rows, ...DATA.k.map((k) => lpois(k, Math.exp(mu))), ...DATA.Z.map((z) => lmvn(z, mu))];
}

describe("pointwise log-likelihood", () => {
  it("one value per observed element in data order, from draws stored in Stan's column-major order", () => {
    const compiled = compileModel(example, DATA);
    const ev = logLikEvaluator(compiled);
    expect(ev.names).toEqual(Array.from({ length: 10 }, (_, i) => `log_lik[${i + 1}]`));
    expect(ev.parameterEntries).toBe(8);
    const B = [[0.3, -0.2, 1.1], [0.9, 0.0, -0.7]];
    // constrainedNames order: B[1,1], B[2,1], B[1,2], … then s, mu, then the deterministic.
    expect(compiled.constrainedNames().slice(0, 3)).toEqual(["B[1,1]", "B[2,1]", "B[1,2]"]);
    const row = [B[0]![0]!, B[1]![0]!, B[0]![1]!, B[1]![1]!, B[0]![2]!, B[1]![2]!, 1.7, 0.4, Math.exp(0.4)];
    const got = Array.from(ev.at(row));
    expected(B, 1.7, 0.4).forEach((e, i) => expect(got[i]).toBeCloseTo(e, 11));
  });

  it("pointwiseLogLik takes draws by bracket name [chain][draw] and returns [observation][chain][draw]", () => {
    const names = compileModel(example, DATA).constrainedNames();
    // Two chains of three draws; every value a function of (chain, draw).
    const value = (n: string, c: number, s: number) => (n === "s" ? 1 + 0.3 * c + 0.1 * s : 0.1 * names.indexOf(n) - 0.2 * c + 0.05 * s);
    const draws = Object.fromEntries(names.map((n) => [n, [0, 1].map((c) => Float64Array.from([0, 1, 2], (s) => value(n, c, s)))]));
    const ll = pointwiseLogLik(example, DATA, draws);
    expect(ll).toHaveLength(10);
    for (let c = 0; c < 2; c++) {
      for (let s = 0; s < 3; s++) {
        const B = [0, 1].map((i) => [0, 1, 2].map((j) => value(`B[${i + 1},${j + 1}]`, c, s)));
        const want = expected(B, value("s", c, s), value("mu", c, s));
        want.forEach((w, i) => expect(ll[i]![c]![s]).toBeCloseTo(w, 11));
      }
    }
    // The result is loo's input as it is.
    expect(loo(ll).observations).toBe(10);
  });

  it("says which parameters the draws lack, and that a model without observe terms has no log-likelihood", () => {
    expect(() => pointwiseLogLik(example, DATA, { mu: [Float64Array.of(0)] })).toThrow(/the draws have no B\[1,1\], B\[2,1\]/);
    const prior = model({ name: "prior_only", data: {}, build: (m) => void m.param("x", normal(0, 1)) });
    expect(() => logLikEvaluator(compileModel(prior, {}))).toThrow(ModelError);
    expect(() => logLikEvaluator(compileModel(prior, {}))).toThrow(/observes nothing/);
  });
});

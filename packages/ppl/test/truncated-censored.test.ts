/**
 * truncated(dist, bounds) and m.observeCensored(y, dist, limits): truncation against the
 * independently written truncatedNormal and against normalisation by quadrature and by summing a
 * pmf; its support, draws and gradients; censoring's pointwise terms, its gradients at the limits,
 * and how it composes with a model's log density, pointwise log-likelihood and predictive draws.
 */
import { describe, expect, it } from "vitest";
import { checkGrad, constant, data, interpret, param, sum, type Bindings, type Node } from "@ppl/tensor";
import {
  compileModel, data as dataSpec, gamma, generatedEvaluator, logLikEvaluator, model, normal, philoxRng, poisson, truncated,
  truncatedNormal, weibull,
} from "../src/index.ts";
import { censored } from "../src/distributions/censored.ts";

const values = (n: Node, b: Bindings = {}) => Array.from(interpret([n], b)[0]!.data);
const lnorm = (x: number, m: number, s: number) => -0.5 * ((x - m) / s) ** 2 - Math.log(s) - 0.5 * Math.log(2 * Math.PI);

describe("truncated", () => {
  const xs = [-3, -1, -0.2, 0.5, 1.7, 2, 4];
  const x = constant(xs, [xs.length]);

  it("matches truncatedNormal on every side, −∞ outside the bounds", () => {
    for (const b of [{ lower: -1, upper: 2 }, { lower: -1 }, { upper: 2 }, { lower: 1.5, upper: 6 }]) {
      const got = values(truncated(normal(0.3, 1.2), b).logpdf(x));
      const want = values(truncatedNormal(0.3, 1.2, b).logpdf(x));
      got.forEach((g, i) => (Number.isFinite(want[i]!) ? expect(g).toBeCloseTo(want[i]!, 12) : expect(g).toBe(-Infinity)));
    }
  });

  it("integrates to one (a gamma truncated above, by Simpson's rule)", () => {
    const n = 2000, hi = 3;
    const grid = Array.from({ length: n + 1 }, (_, i) => (i * hi) / n);
    const p = values(truncated(gamma(2.5, 1.3), { upper: hi }).logpdf(constant(grid, [n + 1]))).map(Math.exp);
    const h = hi / n;
    const integral = (h / 3) * p.reduce((s, v, i) => s + v * (i === 0 || i === n ? 1 : i % 2 === 1 ? 4 : 2), 0);
    expect(integral).toBeCloseTo(1, 6);
  });

  it("keeps both bounds of a discrete distribution and its pmf sums to one", () => {
    const ks = [0, 1, 2, 3, 4, 5, 6];
    const lp = values(truncated(poisson(3), { lower: 1, upper: 5 }).logpdf(constant(ks, [ks.length])));
    expect(lp[0]).toBe(-Infinity);
    expect(lp[6]).toBe(-Infinity);
    expect(lp.reduce((s, v) => s + Math.exp(v), 0)).toBeCloseTo(1, 12);
    // p(k)/(F(5) − F(0)) for the Poisson(3) pmf.
    const pmf = (k: number) => Math.exp(k * Math.log(3) - 3 - [0, 0, Math.log(2), Math.log(6), Math.log(24), Math.log(120)][k]!);
    const mass = [1, 2, 3, 4, 5].reduce((s, k) => s + pmf(k), 0);
    expect(lp[2]).toBeCloseTo(Math.log(pmf(2) / mass), 12);
  });

  it("narrows the support, so a parameter's transform follows the bounds", () => {
    expect(truncated(normal(0, 1), { lower: 0 }).support).toEqual({ kind: "lower", lower: 0 });
    expect(truncated(gamma(2, 1), { upper: 3 }).support).toEqual({ kind: "interval", lower: 0, upper: 3 });
    expect(truncated(gamma(2, 1), { lower: -1, upper: 3 }).support).toEqual({ kind: "interval", lower: 0, upper: 3 });
    expect(truncated(normal(0, 1), { lower: -2, upper: 2 }).support).toEqual({ kind: "interval", lower: -2, upper: 2 });
  });

  it("gives a parameter with a truncated prior the bound transform of its support", () => {
    const m = model({ name: "prior", data: {}, build: (b) => void b.param("sigma", truncated(normal(0, 2.5), { lower: 0, upper: 10 })) });
    const c = compileModel(m, {});
    expect(c.paramInfo[0]!.transform).toMatch(/interval/);
    // At the unconstrained origin sigma is the middle of (0, 10): the log density includes the Jacobian.
    expect(Number.isFinite(c.logDensityAt([0]))).toBe(true);
  });

  it("lcdf and lccdf are those of the renormalised distribution", () => {
    const d = truncated(normal(0, 1), { lower: -1, upper: 2 });
    const Phi = (z: number) => 0.5 * (1 + erf(z / Math.SQRT2));
    const mass = Phi(2) - Phi(-1);
    const got = values(d.lcdf!(constant([-1.5, 0.3, 2.5], [3])));
    expect(got[0]).toBe(-Infinity);
    expect(got[1]).toBeCloseTo(Math.log((Phi(0.3) - Phi(-1)) / mass), 10);
    expect(got[2]).toBe(0);
    expect(values(d.lccdf!(constant([0.3], [1])))[0]).toBeCloseTo(Math.log((Phi(2) - Phi(0.3)) / mass), 10);
  });

  it("draws by rejection lie inside the bounds and have the truncated mean", () => {
    const N = 20000;
    const draws = truncated(normal(0.3, 1.2), { lower: -1, upper: 2 }).sample(philoxRng(11), [N]).data;
    expect(draws.every((v) => v >= -1 && v <= 2)).toBe(true);
    const want = values(truncatedNormal(0.3, 1.2, { lower: -1, upper: 2 }).mean!())[0]!;
    const sd = Math.sqrt(values(truncatedNormal(0.3, 1.2, { lower: -1, upper: 2 }).variance!())[0]! / N);
    expect(Math.abs(draws.reduce((s, v) => s + v, 0) / N - want)).toBeLessThan(4 * sd);
  });

  it("gradients in the parameters and in bounds that are parameters match finite differences", () => {
    const mu = param("mu"), s = param("s"), lo = param("lo"), y = data("y", [4]);
    const lp = sum(truncated(normal(mu, s), { lower: lo, upper: 2.5 }).logpdf(y));
    const r = checkGrad(lp, [mu, s, lo], { mu: 0.4, s: 1.3, lo: -0.5, y: [-0.2, 0.1, 1.7, 2.4] }, { rtol: 1e-6 });
    expect(r.ok, r.message).toBe(true);
  });

  it("refuses a distribution without CDFs, and empty bounds", () => {
    const noCdf = { ...normal(0, 1), lcdf: undefined, lccdf: undefined };
    expect(() => truncated(noCdf, { lower: 0 })).toThrow(/has no lcdf and lccdf/);
    expect(() => truncated(normal(0, 1), {})).toThrow(/give a lower bound/);
    expect(() => truncated(normal(0, 1), { lower: 2, upper: 1 })).toThrow(/must be below/);
  });
});

// erf by its series (enough for |z| < 3 to 1e-14), so the expectations above are computed independently.
function erf(z: number): number {
  let term = z, s = z;
  for (let n = 1; n < 80; n++) {
    term *= (-z * z) / n;
    s += term / (2 * n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * s;
}

const censoredModel = model({
  name: "censored",
  data: { N: dataSpec.int(), y: dataSpec.vector("N"), lo: dataSpec.real(), hi: dataSpec.real() },
  build(m, d) {
    const mu = m.param("mu", normal(0, 5));
    m.observeCensored(d.y, normal(mu, 1.5), { lower: d.lo, upper: d.hi });
  },
});
const DATA = { N: 5, y: [-1, -0.4, 0.8, 2.5, 2.5], lo: -1, hi: 2.5 };

describe("observeCensored", () => {
  const Phi = (z: number) => 0.5 * (1 + erf(z / Math.SQRT2));
  const pointwise = (mu: number) => [Math.log(Phi((-1 - mu) / 1.5)), lnorm(-0.4, mu, 1.5), lnorm(0.8, mu, 1.5), Math.log(1 - Phi((2.5 - mu) / 1.5)), Math.log(1 - Phi((2.5 - mu) / 1.5))];

  it("adds lcdf at or below the lower limit, lccdf at or above the upper one, the density between", () => {
    const c = compileModel(censoredModel, DATA);
    const mu = 0.7;
    const want = lnorm(mu, 0, 5) + pointwise(mu).reduce((a, b) => a + b, 0);
    expect(c.logDensityAt([mu])).toBeCloseTo(want, 10);
  });

  it("is the pointwise log-likelihood that LOO reads", () => {
    const ev = logLikEvaluator(compileModel(censoredModel, DATA));
    expect(ev.names.length).toBe(5);
    Array.from(ev.at([0.7])).forEach((v, i) => expect(v).toBeCloseTo(pointwise(0.7)[i]!, 10));
  });

  it("draws predictive replicates censored at the same limits", () => {
    const ev = generatedEvaluator(compileModel(censoredModel, DATA), { seed: 3, predictive: true });
    expect(ev.predictiveNames).toEqual(["y_rep"]);
    const reps = Array.from({ length: 400 }, (_, k) => Array.from(ev.at(0, k, [0.7]))).flat();
    expect(reps.every((v) => v >= -1 && v <= 2.5)).toBe(true);
    // P(X ≥ 2.5) = 1 − Φ(1.2) ≈ 0.115 of the replicates sit on the upper limit.
    const atUpper = reps.filter((v) => v === 2.5).length / reps.length;
    expect(Math.abs(atUpper - (1 - Phi(1.2)))).toBeLessThan(4 * Math.sqrt(0.115 * 0.885 / reps.length));
  });

  it("per-element limits, with ±∞ for none, keep gradients finite and right", () => {
    const k = param("k"), s = param("s"), y = data("y", [4]), c = data("c", [4]);
    const lp = sum(censored(weibull(k, s), { upper: c }).logpdf(y));
    const bindings = { k: 1.4, s: 2.2, y: [0.5, 1.3, 3, 3.5], c: [Infinity, 1.3, Infinity, 3.5] };
    const r = checkGrad(lp, [k, s], bindings, { rtol: 1e-6 });
    expect(r.ok, r.message).toBe(true);
    const lw = (t: number) => Math.log(1.4 / 2.2) + 0.4 * Math.log(t / 2.2) - (t / 2.2) ** 1.4;
    const ls = (t: number) => -((t / 2.2) ** 1.4);
    expect(values(lp, bindings)[0]).toBeCloseTo(lw(0.5) + ls(1.3) + lw(3) + ls(3.5), 10);
  });

  it("counts: an element at the upper limit is known to be at least that count", () => {
    const lp = values(censored(poisson(3), { upper: 4 }).logpdf(constant([2, 4, 6], [3])));
    const cdf3 = [0, 1, 2, 3].reduce((acc, j) => acc + Math.exp(j * Math.log(3) - 3 - [0, 0, Math.log(2), Math.log(6)][j]!), 0);
    expect(lp[0]).toBeCloseTo(2 * Math.log(3) - 3 - Math.log(2), 12);
    expect(lp[1]).toBeCloseTo(Math.log(1 - cdf3), 12);
    expect(lp[2]).toBeCloseTo(Math.log(1 - cdf3), 12);
  });

  it("refuses a distribution without CDFs and a call without limits", () => {
    const bad = model({ name: "bad", data: { y: dataSpec.vector(2) }, build: (m, d) => m.observeCensored(d.y, normal(0, 1), {}) });
    expect(() => compileModel(bad, { y: [1, 2] })).toThrow(/give a lower limit/);
  });
});


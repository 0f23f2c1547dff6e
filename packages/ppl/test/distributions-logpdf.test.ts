import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { constant, data, type Node } from "@ppl/tensor";
import betaLogpdf from "@stdlib/stats-base-dists-beta-logpdf";
import bernoulliPmf from "@stdlib/stats-base-dists-bernoulli-pmf";
import binomialLogpmf from "@stdlib/stats-base-dists-binomial-logpmf";
import cauchyLogpdf from "@stdlib/stats-base-dists-cauchy-logpdf";
import chisqLogpdf from "@stdlib/stats-base-dists-chisquare-logpdf";
import expLogpdf from "@stdlib/stats-base-dists-exponential-logpdf";
import gammaLogpdf from "@stdlib/stats-base-dists-gamma-logpdf";
import invgammaLogpdf from "@stdlib/stats-base-dists-invgamma-logpdf";
import laplaceLogpdf from "@stdlib/stats-base-dists-laplace-logpdf";
import logisticLogpdf from "@stdlib/stats-base-dists-logistic-logpdf";
import lognormalLogpdf from "@stdlib/stats-base-dists-lognormal-logpdf";
import nbLogpmf from "@stdlib/stats-base-dists-negative-binomial-logpmf";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalLogpdf from "@stdlib/stats-base-dists-normal-logpdf";
import poissonLogpmf from "@stdlib/stats-base-dists-poisson-logpmf";
import tLogpdf from "@stdlib/stats-base-dists-t-logpdf";
import uniformLogpdf from "@stdlib/stats-base-dists-uniform-logpdf";
import weibullLogpdf from "@stdlib/stats-base-dists-weibull-logpdf";
import gammaln from "@stdlib/math-base-special-gammaln";
import {
  bernoulli, bernoulliLogit, beta, betaBinomial, binomial, binomialLogit, categorical, categoricalLogit, cauchy, chiSquared, custom,
  dirichlet, exponential, gamma, gaussianRandomWalk, halfCauchy, halfNormal, halfStudentT, inverseGamma, laplace, lkjCholesky, logistic,
  logNormal, mixture, multinomial, multivariateNormal, multivariateNormalCholesky, multivariateNormalPrecision, negativeBinomial,
  negativeBinomial2, normal, poisson, poissonLog, skewNormal, studentT, truncatedNormal, uniform, weibull, ModelError, type Distribution,
} from "../src/index.ts";
import { close, columns, evaluate } from "./distributions-helpers.ts";

const num = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
const int = (min: number, max: number) => fc.integer({ min, max });
const sigmoid = (a: number) => 1 / (1 + Math.exp(-a));
const log2 = Math.LN2;

interface Case {
  name: string;
  /** x first, then the distribution's parameters. */
  arb: fc.Arbitrary<number[]>;
  make: (p: Node[]) => Distribution;
  ref: (x: number, ...p: number[]) => number;
}

const cases: Case[] = [
  { name: "normal", arb: fc.tuple(num(-20, 20), num(-5, 5), num(0.1, 10)), make: ([m, s]) => normal(m!, s!), ref: (x, m, s) => normalLogpdf(x, m!, s!) },
  { name: "halfNormal", arb: fc.tuple(num(0, 20), num(0.1, 10)), make: ([s]) => halfNormal(s!), ref: (x, s) => log2 + normalLogpdf(x, 0, s!) },
  { name: "studentT", arb: fc.tuple(num(-20, 20), num(0.5, 30), num(-5, 5), num(0.1, 10)), make: ([n, m, s]) => studentT(n!, m!, s!), ref: (x, n, m, s) => tLogpdf((x - m!) / s!, n!) - Math.log(s!) },
  { name: "halfStudentT", arb: fc.tuple(num(0, 20), num(0.5, 30), num(0.1, 10)), make: ([n, s]) => halfStudentT(n!, s!), ref: (x, n, s) => log2 + tLogpdf(x / s!, n!) - Math.log(s!) },
  { name: "cauchy", arb: fc.tuple(num(-20, 20), num(-5, 5), num(0.1, 10)), make: ([m, s]) => cauchy(m!, s!), ref: (x, m, s) => cauchyLogpdf(x, m!, s!) },
  { name: "halfCauchy", arb: fc.tuple(num(0, 20), num(0.1, 10)), make: ([s]) => halfCauchy(0, s!), ref: (x, s) => log2 + cauchyLogpdf(x, 0, s!) },
  { name: "laplace", arb: fc.tuple(num(-20, 20), num(-5, 5), num(0.1, 10)), make: ([m, b]) => laplace(m!, b!), ref: (x, m, b) => laplaceLogpdf(x, m!, b!) },
  { name: "logistic", arb: fc.tuple(num(-20, 20), num(-5, 5), num(0.1, 10)), make: ([m, s]) => logistic(m!, s!), ref: (x, m, s) => logisticLogpdf(x, m!, s!) },
  { name: "logNormal", arb: fc.tuple(num(0.01, 50), num(-2, 2), num(0.1, 3)), make: ([m, s]) => logNormal(m!, s!), ref: (x, m, s) => lognormalLogpdf(x, m!, s!) },
  { name: "exponential", arb: fc.tuple(num(0, 20), num(0.1, 10)), make: ([r]) => exponential(r!), ref: (x, r) => expLogpdf(x, r!) },
  { name: "gamma", arb: fc.tuple(num(0.01, 20), num(0.2, 20), num(0.1, 10)), make: ([a, b]) => gamma(a!, b!), ref: (x, a, b) => gammaLogpdf(x, a!, b!) },
  { name: "inverseGamma", arb: fc.tuple(num(0.01, 20), num(0.2, 20), num(0.1, 10)), make: ([a, b]) => inverseGamma(a!, b!), ref: (x, a, b) => invgammaLogpdf(x, a!, b!) },
  { name: "beta", arb: fc.tuple(num(0.001, 0.999), num(0.2, 20), num(0.2, 20)), make: ([a, b]) => beta(a!, b!), ref: (x, a, b) => betaLogpdf(x, a!, b!) },
  { name: "uniform", arb: fc.tuple(num(0, 1), num(-5, 0), num(1, 5)), make: ([a, b]) => uniform(a!, b!), ref: (x, a, b) => uniformLogpdf(x, a!, b!) },
  { name: "weibull", arb: fc.tuple(num(0.01, 20), num(0.3, 5), num(0.1, 10)), make: ([k, s]) => weibull(k!, s!), ref: (x, k, s) => weibullLogpdf(x, k!, s!) },
  { name: "chiSquared", arb: fc.tuple(num(0.01, 40), num(0.5, 30)), make: ([n]) => chiSquared(n!), ref: (x, n) => chisqLogpdf(x, n!) },
  {
    name: "truncatedNormal",
    arb: fc.tuple(num(0, 1), num(-3, 3), num(0.2, 4), num(-4, 0), num(0.5, 6)).map(([u, m, s, a, w]) => [a + u * w, m, s, a, a + w]),
    make: ([m, s, a, b]) => truncatedNormal(m!, s!, { lower: a!, upper: b! }),
    // Φ(β) − Φ(α), from the upper tail when the interval lies above the mean so the reference does not cancel.
    ref: (x, m, s, a, b) =>
      normalLogpdf(x, m!, s!) - Math.log(a! > m! ? normalCdf(-(a! - m!) / s!, 0, 1) - normalCdf(-(b! - m!) / s!, 0, 1) : normalCdf(b!, m!, s!) - normalCdf(a!, m!, s!)),
  },
  {
    name: "truncatedNormal (lower only)",
    arb: fc.tuple(num(0, 5), num(-3, 3), num(0.2, 4), num(-2, 2)).map(([d, m, s, a]) => [a + d, m, s, a]),
    make: ([m, s, a]) => truncatedNormal(m!, s!, { lower: a! }),
    ref: (x, m, s, a) => normalLogpdf(x, m!, s!) - Math.log(normalCdf((m! - a!) / s!, 0, 1)),
  },
  {
    name: "skewNormal",
    arb: fc.tuple(num(-5, 5), num(-2, 2), num(0.3, 3), num(-4, 4)),
    make: ([xi, w, a]) => skewNormal(xi!, w!, a!),
    ref: (x, xi, w, a) => log2 + normalLogpdf(x, xi!, w!) + Math.log(normalCdf((a! * (x - xi!)) / w!, 0, 1)),
  },
  { name: "bernoulli", arb: fc.tuple(int(0, 1), num(0.01, 0.99)), make: ([p]) => bernoulli(p!), ref: (x, p) => Math.log(bernoulliPmf(x, p!)) },
  { name: "bernoulliLogit", arb: fc.tuple(int(0, 1), num(-8, 8)), make: ([a]) => bernoulliLogit(a!), ref: (x, a) => Math.log(bernoulliPmf(x, sigmoid(a!))) },
  { name: "binomial", arb: fc.tuple(int(0, 30), num(0.01, 0.99)).map(([n, p]) => [Math.floor(n / 2), n, p]), make: ([n, p]) => binomial(n!, p!), ref: (k, n, p) => binomialLogpmf(k, n!, p!) },
  { name: "binomialLogit", arb: fc.tuple(int(0, 30), num(-5, 5)).map(([n, a]) => [Math.floor(n / 3), n, a]), make: ([n, a]) => binomialLogit(n!, a!), ref: (k, n, a) => binomialLogpmf(k, n!, sigmoid(a!)) },
  { name: "poisson", arb: fc.tuple(int(0, 40), num(0.1, 30)), make: ([r]) => poisson(r!), ref: (k, r) => poissonLogpmf(k, r!) },
  { name: "poissonLog", arb: fc.tuple(int(0, 40), num(-3, 3.5)), make: ([e]) => poissonLog(e!), ref: (k, e) => poissonLogpmf(k, Math.exp(e!)) },
  { name: "negativeBinomial", arb: fc.tuple(int(0, 40), num(0.2, 20), num(0.1, 5)), make: ([a, b]) => negativeBinomial(a!, b!), ref: (k, a, b) => nbLogpmf(k, a!, b! / (1 + b!)) },
  { name: "negativeBinomial2", arb: fc.tuple(int(0, 40), num(0.2, 20), num(0.1, 20)), make: ([m, f]) => negativeBinomial2(m!, f!), ref: (k, m, f) => nbLogpmf(k, f!, f! / (m! + f!)) },
  {
    name: "betaBinomial",
    arb: fc.tuple(int(1, 15), num(0, 1), num(2, 6), num(2, 6)).map(([n, u, a, b]) => [Math.floor(u * n), n, a, b]),
    make: ([n, a, b]) => betaBinomial(n!, a!, b!),
    // Independent oracle: the binomial mass averaged over p ~ Beta(a, b) by Simpson's rule.
    ref: (k, n, a, b) => {
      const m = 4000;
      let s = 0;
      for (let i = 0; i <= m; i++) {
        const p = Math.min(Math.max(i / m, 1e-300), 1 - 1e-16);
        const w = i === 0 || i === m ? 1 : i % 2 === 1 ? 4 : 2;
        const f = Math.exp(binomialLogpmf(k, n!, p) + betaLogpdf(p, a!, b!));
        s += w * (Number.isFinite(f) ? f : 0);
      }
      return Math.log((s / (3 * m)));
    },
  },
];

describe("scalar distributions: logpdf against reference values on random parameters", () => {
  for (const c of cases) {
    test(c.name, () => {
      const rows = fc.sample(c.arb, { numRuns: 150, seed: 17 });
      const { nodes, bindings } = columns(rows);
      const [x, ...params] = nodes;
      const got = evaluate(c.make(params).logpdf(x!), bindings);
      const tol = c.name === "betaBinomial" ? 1e-6 : 1e-9;
      rows.forEach((r, i) => {
        const want = c.ref(r[0]!, ...r.slice(1));
        if (!close(got[i]!, want, tol)) throw new Error(`${c.name} at ${JSON.stringify(r)}: got ${got[i]}, reference ${want}`);
      });
    });
  }
});

describe("support edges: −∞ outside the support", () => {
  const outside: [string, Distribution, number][] = [
    ["halfNormal", halfNormal(1), -0.5],
    ["halfCauchy", halfCauchy(2), -1],
    ["halfStudentT", halfStudentT(3, 1), -1e-9],
    ["exponential", exponential(1), -1],
    ["gamma", gamma(2, 1), -0.1],
    ["inverseGamma", inverseGamma(2, 1), -0.1],
    ["logNormal", logNormal(0, 1), -1],
    ["weibull", weibull(2, 1), -1],
    ["chiSquared", chiSquared(3), -1],
    ["beta below", beta(2, 2), -0.1],
    ["beta above", beta(2, 2), 1.1],
    ["uniform below", uniform(0, 1), -0.01],
    ["uniform above", uniform(0, 1), 1.01],
    ["truncatedNormal below", truncatedNormal(0, 1, { lower: 0.5 }), 0.4],
    ["truncatedNormal above", truncatedNormal(0, 1, { upper: 0.5 }), 0.6],
    ["bernoulli", bernoulli(0.3), 2],
    ["binomial above n", binomial(5, 0.3), 6],
    ["binomial negative", binomial(5, 0.3), -1],
    ["poisson", poisson(2), -1],
    ["negativeBinomial2", negativeBinomial2(2, 3), -1],
    ["categorical 0", categorical(constant([0.2, 0.8], [2])), 0],
    ["categorical K+1", categorical(constant([0.2, 0.8], [2])), 3],
  ];
  for (const [name, d, x] of outside) {
    test(name, () => expect(evaluate(d.logpdf(x))[0]).toBe(-Infinity));
  }
  test("boundary values stay finite where the density is", () => {
    expect(evaluate(gamma(1, 2).logpdf(0))[0]).toBeCloseTo(Math.log(2), 12);
    expect(evaluate(exponential(3).logpdf(0))[0]).toBeCloseTo(Math.log(3), 12);
    expect(evaluate(bernoulli(0).logpdf(0))[0]).toBe(0);
    expect(evaluate(binomial(4, 1).logpdf(4))[0]).toBe(0);
    expect(evaluate(poisson(0).logpdf(0))[0]).toBe(0);
  });
  test("stable forms: logit parameterizations and far tails do not overflow", () => {
    expect(evaluate(bernoulliLogit(800).logpdf(1))[0]).toBeCloseTo(0, 12);
    expect(evaluate(bernoulliLogit(800).logpdf(0))[0]).toBeCloseTo(-800, 9);
    expect(evaluate(logistic(0, 1).logpdf(800))[0]).toBeCloseTo(-800, 9);
    expect(evaluate(poissonLog(-700).logpdf(0))[0]).toBeCloseTo(-Math.exp(-700), 12);
  });
});

describe("categorical, multinomial, dirichlet", () => {
  test("categorical and categoricalLogit pick log p[x] (1-based) over batches", () => {
    fc.assert(
      fc.property(fc.array(num(0.05, 3), { minLength: 2, maxLength: 6 }), int(0, 1000), (w, pick) => {
        const k = w.length;
        const total = w.reduce((a, b) => a + b, 0);
        const probs = w.map((v) => v / total);
        const xs = [1 + (pick % k), 1 + ((pick * 7) % k), k];
        const x = data("x", [3]);
        const b = { x: Float64Array.from(xs) };
        const lp = evaluate(categorical(constant(probs, [k])).logpdf(x), b);
        const lp2 = evaluate(categoricalLogit(constant(w.map(Math.log), [k])).logpdf(x), b);
        xs.forEach((xi, i) => {
          expect(close(lp[i]!, Math.log(probs[xi - 1]!), 1e-12)).toBe(true);
          expect(close(lp2[i]!, Math.log(probs[xi - 1]!), 1e-12)).toBe(true);
        });
      }),
      { numRuns: 40, seed: 3 },
    );
  });
  test("multinomial equals the chain of conditional binomials", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(num(0.05, 3), int(0, 6)), { minLength: 2, maxLength: 5 }), (rows) => {
        const total = rows.reduce((a, [v]) => a + v, 0);
        const p = rows.map(([v]) => v / total);
        const x = rows.map(([, c]) => c);
        let want = 0, left = x.reduce((a, b) => a + b, 0), rest = 1;
        for (let i = 0; i < x.length - 1; i++) {
          want += binomialLogpmf(x[i]!, left, Math.min(1, p[i]! / rest));
          left -= x[i]!;
          rest -= p[i]!;
        }
        const got = evaluate(multinomial(constant(p, [p.length])).logpdf(constant(x, [x.length])))[0]!;
        expect(close(got, want, 1e-9)).toBe(true);
      }),
      { numRuns: 60, seed: 5 },
    );
  });
  test("dirichlet: K=2 is the beta density; K=3 matches the closed form", () => {
    fc.assert(
      fc.property(num(0.3, 8), num(0.3, 8), num(0.3, 8), num(0.05, 0.9), num(0.05, 0.9), (a1, a2, a3, u, v) => {
        const got2 = evaluate(dirichlet(constant([a1, a2], [2])).logpdf(constant([u, 1 - u], [2])))[0]!;
        expect(close(got2, betaLogpdf(u, a1, a2), 1e-9)).toBe(true);
        const x = [u * v, u * (1 - v), 1 - u];
        const want = gammaln(a1 + a2 + a3) - gammaln(a1) - gammaln(a2) - gammaln(a3) + (a1 - 1) * Math.log(x[0]!) + (a2 - 1) * Math.log(x[1]!) + (a3 - 1) * Math.log(x[2]!);
        const got3 = evaluate(dirichlet(constant([a1, a2, a3], [3])).logpdf(constant(x, [3])))[0]!;
        expect(close(got3, want, 1e-9)).toBe(true);
      }),
      { numRuns: 60, seed: 7 },
    );
  });
});

describe("multivariate normal", () => {
  test("the three forms agree with the bivariate closed form, over a batch of points", () => {
    fc.assert(
      fc.property(num(0.3, 3), num(0.3, 3), num(-0.95, 0.95), fc.array(fc.tuple(num(-4, 4), num(-4, 4)), { minLength: 1, maxLength: 5 }), (s1, s2, rho, pts) => {
        const cov = [s1 * s1, rho * s1 * s2, rho * s1 * s2, s2 * s2];
        const det = cov[0]! * cov[3]! - cov[1]! * cov[2]!;
        const prec = [cov[3]! / det, -cov[1]! / det, -cov[2]! / det, cov[0]! / det];
        const L = [s1, 0, rho * s2, s2 * Math.sqrt(1 - rho * rho)];
        const mu = constant([0.5, -1], [2]);
        const x = constant(pts.flat(), [pts.length, 2]);
        const want = pts.map(([a, b]) => {
          const z1 = (a - 0.5) / s1, z2 = (b + 1) / s2;
          return -Math.log(2 * Math.PI * s1 * s2 * Math.sqrt(1 - rho * rho)) - (z1 * z1 - 2 * rho * z1 * z2 + z2 * z2) / (2 * (1 - rho * rho));
        });
        for (const d of [multivariateNormal(mu, constant(cov, [2, 2])), multivariateNormalPrecision(mu, constant(prec, [2, 2])), multivariateNormalCholesky(mu, constant(L, [2, 2]))]) {
          const got = evaluate(d.logpdf(x));
          expect(got.length).toBe(pts.length);
          want.forEach((w, i) => expect(close(got[i]!, w, 1e-9)).toBe(true));
        }
      }),
      { numRuns: 40, seed: 11 },
    );
  });
  test("a single vector gives a scalar", () => {
    const d = multivariateNormal(0, constant([1, 0, 0, 4], [2, 2]));
    expect(evaluate(d.logpdf(constant([1, 2], [2])))[0]).toBeCloseTo(normalLogpdf(1, 0, 1) + normalLogpdf(2, 0, 2), 12);
  });
});

describe("LKJ Cholesky", () => {
  test("K=2: the density of r is (1 − r²)^(η−1) / (2^(2η−1) B(η, η))", () => {
    fc.assert(
      fc.property(num(-0.99, 0.99), num(0.3, 6), (r, eta) => {
        const L = constant([1, 0, r, Math.sqrt(1 - r * r)], [2, 2]);
        const lbeta = gammaln(eta) * 2 - gammaln(2 * eta);
        const want = (eta - 1) * Math.log(1 - r * r) - (2 * eta - 1) * Math.LN2 - lbeta;
        expect(close(evaluate(lkjCholesky(2, eta).logpdf(L))[0]!, want, 1e-9)).toBe(true);
      }),
      { numRuns: 50, seed: 13 },
    );
  });
  test("K=3, η=1: log p(L) = log L22 − log(π²/2) (the volume of 3×3 correlation matrices is π²/2)", () => {
    const L = constant([1, 0, 0, 0.3, Math.sqrt(0.91), 0, -0.2, 0.5, Math.sqrt(1 - 0.04 - 0.25)], [3, 3]);
    expect(evaluate(lkjCholesky(3, 1).logpdf(L))[0]).toBeCloseTo(0.5 * Math.log(0.91) - Math.log((Math.PI * Math.PI) / 2), 12);
  });
  test("K=3: the density integrates to 1 over the partial-correlation cube (η = 0.8, 2.5)", () => {
    // Grid over z21, z31, z32 ∈ (−1, 1): L21 = z21, L31 = z31, L32 = z32·sqrt(1 − z31²); the Jacobian is sqrt(1 − z31²).
    const m = 40;
    const pts: number[] = [];
    const jac: number[] = [];
    for (let a = 0; a < m; a++) for (let b = 0; b < m; b++) for (let c = 0; c < m; c++) {
      const z21 = -1 + (2 * (a + 0.5)) / m, z31 = -1 + (2 * (b + 0.5)) / m, z32 = -1 + (2 * (c + 0.5)) / m;
      const l32 = z32 * Math.sqrt(1 - z31 * z31);
      pts.push(1, 0, 0, z21, Math.sqrt(1 - z21 * z21), 0, z31, l32, Math.sqrt(1 - z31 * z31 - l32 * l32));
      jac.push(Math.sqrt(1 - z31 * z31));
    }
    const x = data("L", [m * m * m, 3, 3]);
    for (const eta of [0.8, 2.5]) {
      const lp = evaluate(lkjCholesky(3, eta).logpdf(x), { L: Float64Array.from(pts) });
      let s = 0;
      lp.forEach((v, i) => (s += Math.exp(v) * jac[i]!));
      expect(Math.abs((s * 8) / (m * m * m) - 1)).toBeLessThan(0.02);
    }
  });
});

describe("random walk, mixture, custom", () => {
  test("gaussianRandomWalk is the sum of normal increments from 0", () => {
    fc.assert(
      fc.property(fc.array(num(-5, 5), { minLength: 1, maxLength: 8 }), num(0.2, 3), (xs, s) => {
        let want = 0, prev = 0;
        for (const x of xs) {
          want += normalLogpdf(x - prev, 0, s);
          prev = x;
        }
        expect(close(evaluate(gaussianRandomWalk(s, xs.length).logpdf(constant(xs, [xs.length])))[0]!, want, 1e-10)).toBe(true);
      }),
      { numRuns: 50, seed: 19 },
    );
  });
  test("mixture: log(w·p1 + (1−w)·p2), for a list of components and for a batched component", () => {
    fc.assert(
      fc.property(num(0.01, 0.99), num(-3, 3), num(-3, 3), num(0.3, 3), num(0.3, 3), fc.array(num(-6, 6), { minLength: 1, maxLength: 6 }), (w, m1, m2, s1, s2, xs) => {
        const x = constant(xs, [xs.length]);
        const listed = evaluate(mixture([w, 1 - w], [normal(m1, s1), normal(m2, s2)]).logpdf(x));
        const batched = evaluate(mixture(constant([w, 1 - w], [2]), normal(constant([m1, m2], [2]), constant([s1, s2], [2]))).logpdf(x));
        xs.forEach((v, i) => {
          const want = Math.log(w * Math.exp(normalLogpdf(v, m1, s1)) + (1 - w) * Math.exp(normalLogpdf(v, m2, s2)));
          expect(close(listed[i]!, want, 1e-10)).toBe(true);
          expect(close(batched[i]!, want, 1e-10)).toBe(true);
        });
      }),
      { numRuns: 50, seed: 23 },
    );
  });
  test("custom passes its log density through and refuses to sample", () => {
    const d = custom((x) => x, { name: "identity_density" });
    expect(evaluate(d.logpdf(2.5))[0]).toBe(2.5);
    expect(() => d.sample({ uniform: Math.random, normal: Math.random })).toThrow(ModelError);
    expect(() => custom((x) => x, { suport: { kind: "real" } } as never)).toThrow(/unknown option 'suport'/);
  });
});

describe("argument checks", () => {
  test("bad literal parameters are ModelErrors naming the argument", () => {
    expect(() => normal(0, -1)).toThrow(/normal: sigma must be positive, got -1/);
    expect(() => beta(0, 1)).toThrow(/beta: a must be positive/);
    expect(() => binomial(2.5, 0.5)).toThrow(/binomial: n must be a non-negative integer/);
    expect(() => bernoulli(1.5)).toThrow(/bernoulli: p must be in \[0, 1\]/);
    expect(() => uniform(2, 1)).toThrow(/uniform: lower \(2\) must be below upper \(1\)/);
    expect(() => halfNormal(1 as 0, 2)).toThrow(/halfNormal: expects \(scale\) or \(0, scale\)/);
    expect(() => truncatedNormal(0, 1, { lowr: 0 } as never)).toThrow(/unknown argument 'lowr'/);
    expect(() => normal(constant([1, 2, 3], [3]), constant([1, 2], [2]))).toThrow(/normal: parameter shapes do not broadcast/);
    expect(() => lkjCholesky(1, 1)).toThrow(ModelError);
    expect(() => mixture([0.5, 0.5], [normal(0, 1)])).toThrow(/2 weights for 1 components/);
  });
});

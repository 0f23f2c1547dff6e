import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { checkGrad, constant, param, sub, sum, type Node } from "@ppl/tensor";
import {
  bernoulli, bernoulliLogit, beta, betaBinomial, binomial, binomialLogit, categorical, categoricalLogit, cauchy, chiSquared, dirichlet,
  exponential, gamma, gaussianRandomWalk, halfCauchy, halfNormal, halfStudentT, inverseGamma, laplace, lkjCholesky, logistic, logNormal,
  mixture, multinomial, multivariateNormal, multivariateNormalCholesky, multivariateNormalPrecision, negativeBinomial, negativeBinomial2,
  normal, poisson, poissonLog, skewNormal, studentT, truncatedNormal, uniform, weibull, type Distribution,
} from "../src/index.ts";

const num = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

interface GradCase {
  name: string;
  /** Values of x then of each parameter, one entry each (scalars, 4 points per case). */
  arb: fc.Arbitrary<number[]>;
  make: (p: Node[]) => Distribution;
  /** Whether x is differentiable (continuous). */
  continuous: boolean;
}

const K = 4; // points per evaluation: each leaf is a vector of 4

const gradCases: GradCase[] = [
  { name: "normal", arb: fc.tuple(num(-5, 5), num(-2, 2), num(0.5, 3)), make: ([m, s]) => normal(m!, s!), continuous: true },
  { name: "halfNormal", arb: fc.tuple(num(0.1, 5), num(0.5, 3)), make: ([s]) => halfNormal(s!), continuous: true },
  { name: "studentT", arb: fc.tuple(num(-5, 5), num(1, 20), num(-2, 2), num(0.5, 3)), make: ([n, m, s]) => studentT(n!, m!, s!), continuous: true },
  { name: "halfStudentT", arb: fc.tuple(num(0.1, 5), num(1, 20), num(0.5, 3)), make: ([n, s]) => halfStudentT(n!, s!), continuous: true },
  { name: "cauchy", arb: fc.tuple(num(-5, 5), num(-2, 2), num(0.5, 3)), make: ([m, s]) => cauchy(m!, s!), continuous: true },
  { name: "halfCauchy", arb: fc.tuple(num(0.1, 5), num(0.5, 3)), make: ([s]) => halfCauchy(s!), continuous: true },
  { name: "laplace", arb: fc.tuple(num(0.5, 5), num(-2, 0), num(0.5, 3)), make: ([m, b]) => laplace(m!, b!), continuous: true },
  { name: "logistic", arb: fc.tuple(num(-5, 5), num(-2, 2), num(0.5, 3)), make: ([m, s]) => logistic(m!, s!), continuous: true },
  { name: "logNormal", arb: fc.tuple(num(0.2, 5), num(-1, 1), num(0.5, 2)), make: ([m, s]) => logNormal(m!, s!), continuous: true },
  { name: "exponential", arb: fc.tuple(num(0.1, 5), num(0.5, 3)), make: ([r]) => exponential(r!), continuous: true },
  { name: "gamma", arb: fc.tuple(num(0.2, 5), num(0.5, 5), num(0.5, 3)), make: ([a, b]) => gamma(a!, b!), continuous: true },
  { name: "inverseGamma", arb: fc.tuple(num(0.2, 5), num(0.5, 5), num(0.5, 3)), make: ([a, b]) => inverseGamma(a!, b!), continuous: true },
  { name: "beta", arb: fc.tuple(num(0.1, 0.9), num(0.5, 5), num(0.5, 5)), make: ([a, b]) => beta(a!, b!), continuous: true },
  { name: "uniform", arb: fc.tuple(num(0, 0.9), num(-3, -1), num(1, 3)), make: ([a, b]) => uniform(a!, b!), continuous: true },
  { name: "weibull", arb: fc.tuple(num(0.2, 4), num(0.8, 3), num(0.5, 3)), make: ([k, s]) => weibull(k!, s!), continuous: true },
  { name: "chiSquared", arb: fc.tuple(num(0.2, 8), num(1, 10)), make: ([n]) => chiSquared(n!), continuous: true },
  { name: "truncatedNormal", arb: fc.tuple(num(0.1, 0.9), num(-1, 1), num(0.5, 2)), make: ([m, s]) => truncatedNormal(m!, s!, { lower: 0, upper: 1 }), continuous: true },
  { name: "skewNormal", arb: fc.tuple(num(-3, 3), num(-1, 1), num(0.5, 2), num(-2, 2)), make: ([xi, w, a]) => skewNormal(xi!, w!, a!), continuous: true },
  { name: "bernoulli", arb: fc.tuple(fc.constantFrom(0, 1), num(0.1, 0.9)), make: ([p]) => bernoulli(p!), continuous: false },
  { name: "bernoulliLogit", arb: fc.tuple(fc.constantFrom(0, 1), num(-3, 3)), make: ([a]) => bernoulliLogit(a!), continuous: false },
  { name: "binomial", arb: fc.tuple(fc.constantFrom(0, 2, 5), num(0.1, 0.9)), make: ([p]) => binomial(5, p!), continuous: false },
  { name: "binomialLogit", arb: fc.tuple(fc.constantFrom(0, 2, 5), num(-3, 3)), make: ([a]) => binomialLogit(5, a!), continuous: false },
  { name: "betaBinomial", arb: fc.tuple(fc.constantFrom(0, 3, 6), num(0.5, 4), num(0.5, 4)), make: ([a, b]) => betaBinomial(6, a!, b!), continuous: false },
  { name: "poisson", arb: fc.tuple(fc.constantFrom(0, 1, 7), num(0.5, 8)), make: ([r]) => poisson(r!), continuous: false },
  { name: "poissonLog", arb: fc.tuple(fc.constantFrom(0, 1, 7), num(-1, 2)), make: ([e]) => poissonLog(e!), continuous: false },
  { name: "negativeBinomial", arb: fc.tuple(fc.constantFrom(0, 3, 9), num(0.5, 5), num(0.3, 3)), make: ([a, b]) => negativeBinomial(a!, b!), continuous: false },
  { name: "negativeBinomial2", arb: fc.tuple(fc.constantFrom(0, 3, 9), num(0.5, 5), num(0.3, 5)), make: ([m, f]) => negativeBinomial2(m!, f!), continuous: false },
];

/** Check d/d(x, params) of Σ logpdf against central differences at random points. */
function checkCase(c: GradCase, seed: number): void {
  const draws = fc.sample(c.arb, { numRuns: K, seed });
  const width = draws[0]!.length;
  const leaves = Array.from({ length: width }, (_, j) => param(`v${j}`, [K]));
  const bindings = Object.fromEntries(leaves.map((_, j) => [`v${j}`, Float64Array.from(draws, (r) => r[j]!)]));
  const [x, ...ps] = leaves;
  const out = sum(c.make(ps).logpdf(x!));
  const wrt = c.continuous ? leaves : ps;
  const r = checkGrad(out, wrt, bindings, { rtol: 1e-5 });
  if (!r.ok) throw new Error(`${c.name}: ${r.message}`);
}

describe("logpdf gradients against central finite differences", () => {
  gradCases.forEach((c, i) => test(c.name, () => {
    for (let s = 0; s < 3; s++) checkCase(c, 100 * i + s);
  }));

  const vecParam = (name: string, n: number) => param(name, [n]);
  const structured: [string, () => { out: Node; wrt: Node[]; bindings: Record<string, number[]> }][] = [
    ["categorical", () => {
      const p = vecParam("p", 3);
      return { out: sum(categorical(p).logpdf(constant([1, 3, 2, 3], [4]))), wrt: [p], bindings: { p: [0.2, 0.5, 0.3] } };
    }],
    ["categoricalLogit", () => {
      const l = vecParam("l", 3);
      return { out: sum(categoricalLogit(l).logpdf(constant([1, 3, 2, 3], [4]))), wrt: [l], bindings: { l: [0.3, -1, 2] } };
    }],
    ["multinomial", () => {
      const p = vecParam("p", 3);
      return { out: multinomial(p).logpdf(constant([2, 0, 5], [3])), wrt: [p], bindings: { p: [0.2, 0.5, 0.3] } };
    }],
    ["dirichlet", () => {
      const a = vecParam("a", 3), x = vecParam("x", 3);
      return { out: dirichlet(a).logpdf(x), wrt: [a, x], bindings: { a: [0.7, 2, 3.5], x: [0.2, 0.3, 0.5] } };
    }],
    ["multivariateNormal (covariance)", () => {
      const mu = vecParam("mu", 2), cov = param("cov", [2, 2]), x = param("x", [3, 2]);
      return { out: sum(multivariateNormal(mu, cov).logpdf(x)), wrt: [mu, cov, x], bindings: { mu: [0.5, -1], cov: [2, 0.6, 0.6, 1], x: [0, 1, 1, -2, 2, 0.5] } };
    }],
    ["multivariateNormalPrecision", () => {
      const mu = vecParam("mu", 2), prec = param("prec", [2, 2]), x = vecParam("x", 2);
      return { out: multivariateNormalPrecision(mu, prec).logpdf(x), wrt: [mu, prec, x], bindings: { mu: [0.5, -1], prec: [2, 0.6, 0.6, 1], x: [0.3, 1.2] } };
    }],
    ["multivariateNormalCholesky", () => {
      const mu = vecParam("mu", 2), L = param("L", [2, 2]), x = vecParam("x", 2);
      return { out: multivariateNormalCholesky(mu, L).logpdf(x), wrt: [mu, L, x], bindings: { mu: [0.5, -1], L: [1.5, 0, 0.4, 0.8], x: [0.3, 1.2] } };
    }],
    ["lkjCholesky", () => {
      const L = param("L", [3, 3]), eta = param("eta");
      const l32 = 0.5;
      return {
        out: lkjCholesky(3, eta).logpdf(L),
        wrt: [L, eta],
        bindings: { L: [1, 0, 0, 0.3, Math.sqrt(0.91), 0, -0.2, l32, Math.sqrt(1 - 0.04 - l32 * l32)], eta: [1.7] },
      };
    }],
    ["gaussianRandomWalk", () => {
      const x = vecParam("x", 4), s = param("s");
      return { out: gaussianRandomWalk(s, 4).logpdf(x), wrt: [x, s], bindings: { x: [0.3, -0.2, 0.5, 1.1], s: [0.7] } };
    }],
    ["mixture", () => {
      const w = param("w"), mu = vecParam("mu", 2), s = vecParam("s", 2), y = vecParam("y", 5);
      const d = mixture([w, sub(1, w)], normal(mu, s));
      return { out: sum(d.logpdf(y)), wrt: [w, mu, s, y], bindings: { w: [0.3], mu: [-1, 2], s: [0.8, 1.5], y: [-2, -0.5, 0.4, 1.8, 3] } };
    }],
  ];
  for (const [name, make] of structured) {
    test(name, () => {
      const { out, wrt, bindings } = make();
      const r = checkGrad(out, wrt, bindings, { rtol: 1e-5 });
      expect(r.ok, r.message).toBe(true);
    });
  }
});

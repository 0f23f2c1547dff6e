/**
 * Every family's lcdf and lccdf through generic truncation and censoring, checked against its own
 * density: truncated(dist, {lower, upper}) at random bounds must integrate (continuous, by Simpson's
 * rule) or sum (counts) to one, its lcdf at the upper bound is 0 and its lccdf at the lower bound is
 * 0; and a censored observation contributes exactly lcdf at a lower limit and lccdf at an upper one.
 * The log CDFs' values against references are in cdf.test.ts; this ties them to the log densities.
 */
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { constant, interpret, type Node } from "@ppl/tensor";
import * as P from "../src/index.ts";
import { censored } from "../src/distributions/censored.ts";

interface Family {
  dist: P.Distribution;
  /** Where random bounds are drawn from: inside the support. */
  range: [number, number];
  /** Points where the density has a kink: Simpson's rule is applied on each side. */
  knots?: number[];
}

const continuous: Record<string, Family> = {
  normal: { dist: P.normal(0.3, 1.2), range: [-3, 3] },
  halfNormal: { dist: P.halfNormal(1.5), range: [0.05, 4] },
  studentT: { dist: P.studentT(3, 0.5, 1.2), range: [-5, 5] },
  halfStudentT: { dist: P.halfStudentT(4, 1), range: [0.05, 5] },
  cauchy: { dist: P.cauchy(0, 0.7), range: [-5, 5] },
  halfCauchy: { dist: P.halfCauchy(1), range: [0.05, 5] },
  laplace: { dist: P.laplace(0.5, 1.5), range: [-4, 4], knots: [0.5] },
  logistic: { dist: P.logistic(-1, 0.5), range: [-4, 2] },
  logNormal: { dist: P.logNormal(0.2, 0.6), range: [0.1, 5] },
  exponential: { dist: P.exponential(0.8), range: [0.01, 6] },
  gamma: { dist: P.gamma(2.5, 1.3), range: [0.05, 6] },
  inverseGamma: { dist: P.inverseGamma(3, 2), range: [0.1, 5] },
  chiSquared: { dist: P.chiSquared(4.5), range: [0.1, 12] },
  beta: { dist: P.beta(2, 3.5), range: [0.02, 0.98] },
  uniform: { dist: P.uniform(-1, 2), range: [-0.9, 1.9] },
  weibull: { dist: P.weibull(1.7, 2), range: [0.05, 5] },
  skewNormal: { dist: P.skewNormal(0.5, 1.5, 2), range: [-2, 5] },
  truncatedNormal: { dist: P.truncatedNormal(0.3, 1.2, { lower: -1, upper: 3 }), range: [-0.9, 2.9] },
  gumbel: { dist: P.gumbel(0.5, 1.5), range: [-3, 8] },
  frechet: { dist: P.frechet(3, 1.5), range: [0.4, 6] },
  rayleigh: { dist: P.rayleigh(1.3), range: [0.05, 4] },
  pareto: { dist: P.pareto(1, 2.5), range: [1.01, 8] },
  paretoType2: { dist: P.paretoType2(-0.5, 1.5, 2), range: [-0.45, 8] },
  logLogistic: { dist: P.logLogistic(1.5, 3), range: [0.1, 6] },
  inverseChiSquared: { dist: P.inverseChiSquared(5), range: [0.05, 2] },
  scaledInverseChiSquared: { dist: P.scaledInverseChiSquared(5, 0.8), range: [0.1, 4] },
  betaProportion: { dist: P.betaProportion(0.3, 8), range: [0.02, 0.9] },
  expModNormal: { dist: P.expModNormal(0.5, 0.8, 1.3), range: [-2, 6] },
  skewDoubleExponential: { dist: P.skewDoubleExponential(0.5, 1.5, 0.3), range: [-4, 6], knots: [0.5] },
  vonMises: { dist: P.vonMises(0.8, 2.5), range: [-3, 3] },
  vonMisesConcentrated: { dist: P.vonMises(-0.4, 300), range: [-0.7, -0.1] },
};

const discrete: Record<string, Family> = {
  bernoulli: { dist: P.bernoulli(0.3), range: [0, 1] },
  binomial: { dist: P.binomial(12, 0.35), range: [0, 12] },
  poisson: { dist: P.poisson(3.5), range: [0, 15] },
  negativeBinomial: { dist: P.negativeBinomial(2.5, 0.6), range: [0, 20] },
  negativeBinomial2: { dist: P.negativeBinomial2(4, 1.5), range: [0, 20] },
  discreteUniform: { dist: P.discreteUniform(2, 9), range: [2, 9] },
  betaBinomial: { dist: P.betaBinomial(15, 2.5, 1.5), range: [0, 15] },
  // The truncated distribution's own CDFs read counts that are nodes: their table needs the bound.
  betaNegativeBinomial: { dist: P.betaNegativeBinomial(3.5, 4, 2, { maxCount: 30 }), range: [0, 30] },
  poissonBinomial: { dist: P.poissonBinomial(constant([0.2, 0.5, 0.7, 0.05, 0.9, 0.4], [6])), range: [0, 6] },
};

const at = (f: (x: Node) => Node, xs: number[]) => Array.from(interpret([f(constant(xs, [xs.length]))], {})[0]!.data);

// Composite Simpson's rule of exp(logpdf) over [a, b], on each side of the knots inside it.
function integral(d: P.Distribution, a: number, b: number, knots: number[] = []): number {
  const cuts = [a, ...knots.filter((k) => a < k && k < b), b];
  let total = 0;
  for (let s = 0; s + 1 < cuts.length; s++) {
    const lo = cuts[s]!, hi = cuts[s + 1]!, n = 2000, h = (hi - lo) / n;
    // The last node is hi itself: lo + n·h may round past it, outside the truncated support.
    const p = at((x) => d.logpdf(x), Array.from({ length: n + 1 }, (_, i) => (i === n ? hi : lo + i * h))).map(Math.exp);
    total += (h / 3) * p.reduce((acc, v, i) => acc + v * (i === 0 || i === n ? 1 : i % 2 === 1 ? 4 : 2), 0);
  }
  return total;
}

// Two points of the range, in order: counts, or reals at least 0.05 apart.
const boundsIn = ([lo, hi]: [number, number], integer: boolean) => {
  const point = integer ? fc.integer({ min: lo, max: hi }) : fc.double({ min: lo, max: hi, noNaN: true });
  return fc.tuple(point, point)
    .map(([u, v]) => [Math.min(u, v), Math.max(u, v)] as const)
    .filter(([u, v]) => (integer ? u < v : v - u > 0.05));
};

describe("truncated(dist, bounds) of every family with lcdf and lccdf", () => {
  for (const [name, f] of Object.entries(continuous)) {
    test(`${name}: the truncated density integrates to one, and its CDFs end at the bounds`, () => {
      fc.assert(
        fc.property(boundsIn(f.range, false), ([lower, upper]) => {
          const t = P.truncated(f.dist, { lower, upper });
          expect(integral(t, lower, upper, f.knots)).toBeCloseTo(1, 6);
          expect(at((x) => t.lcdf!(x), [upper])[0]).toBe(0);
          expect(at((x) => t.lccdf!(x), [lower])[0]).toBe(0);
        }),
        { numRuns: 6, seed: 13 },
      );
    });
  }
  for (const [name, f] of Object.entries(discrete)) {
    test(`${name}: the truncated mass sums to one over both bounds, and its lcdf is its partial sums`, () => {
      fc.assert(
        fc.property(boundsIn(f.range, true), ([lower, upper]) => {
          const t = P.truncated(f.dist, { lower, upper });
          const ks = Array.from({ length: upper - lower + 1 }, (_, i) => lower + i);
          const mass = at((x) => t.logpdf(x), ks).map(Math.exp);
          expect(mass.reduce((s, v) => s + v, 0)).toBeCloseTo(1, 12);
          const lcdf = at((x) => t.lcdf!(x), ks);
          let partial = 0;
          ks.forEach((_, i) => {
            partial += mass[i]!;
            expect(Math.exp(lcdf[i]!)).toBeCloseTo(partial, 12);
          });
        }),
        { numRuns: 6, seed: 13 },
      );
    });
  }
});

describe("censored observations of every family", () => {
  for (const [name, f] of Object.entries({ ...continuous, ...discrete })) {
    test(`${name}: lcdf at or below the lower limit, lccdf at or above the upper one`, () => {
      const [a, b] = f.range;
      const lower = f.dist.discrete ? a : a + 0.25 * (b - a), upper = f.dist.discrete ? b : a + 0.75 * (b - a);
      const c = censored(f.dist, { lower, upper });
      const got = at((y) => c.logpdf(y), [lower, upper]);
      expect(got[0]).toBe(at((x) => f.dist.lcdf!(x), [lower])[0]);
      // Counts at the upper limit are known to be at least that count: P(Y > upper − 1).
      expect(got[1]).toBe(at((x) => f.dist.lccdf!(x), [f.dist.discrete ? upper - 1 : upper])[0]);
    });
  }
});

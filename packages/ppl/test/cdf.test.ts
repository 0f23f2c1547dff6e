/**
 * lcdf and lccdf of every univariate distribution that has them, against SciPy's logcdf and
 * logsf, or mpmath's closed forms and quadratures at 50 digits (exp_mod_normal, skew double
 * exponential, von Mises; fixtures/cdfs.json, written by fixtures/cdfs.py), tails and points outside
 * the support included; their gradients against central finite differences in x and in every parameter they
 * are differentiable in, shape parameters included.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { checkGrad, data, interpret, param, stack, sum, type Bindings, type Node } from "@ppl/tensor";
import {
  bernoulli, bernoulliLogit, beta, betaBinomial, betaNegativeBinomial, betaProportion, binomial, binomialLogit, cauchy, chiSquared, discreteUniform, expModNormal,
  exponential, frechet, gamma, gumbel, halfCauchy, halfNormal, halfStudentT, inverseChiSquared, inverseGamma, laplace, logistic,
  logLogistic, logNormal, negativeBinomial, negativeBinomial2, normal, pareto, paretoType2, poisson, poissonBinomial, poissonLog,
  rayleigh, scaledInverseChiSquared, skewDoubleExponential, skewNormal, studentT, truncatedNormal, uniform, vonMises, weibull, type Distribution,
} from "../src/index.ts";

type Row = (number | string)[];
const FIX = JSON.parse(readFileSync(new URL("./fixtures/cdfs.json", import.meta.url), "utf8")) as Record<string, Row[]>;
const num = (v: number | string): number => (v === "inf" ? Infinity : v === "-inf" ? -Infinity : (v as number));

interface CdfCase {
  /** Builds the distribution from one node per parameter. */
  make: (p: Node[]) => Distribution;
  /** Parameters the CDFs are differentiable in (indices into p); the others are held as data. */
  smooth: number[];
  /** x is an integer count: no derivative in it. */
  discrete?: boolean;
}

const CASES: Record<string, CdfCase> = {
  normal: { make: ([m, s]) => normal(m!, s!), smooth: [0, 1] },
  halfNormal: { make: ([s]) => halfNormal(s!), smooth: [0] },
  studentT: { make: ([n, m, s]) => studentT(n!, m!, s!), smooth: [0, 1, 2] },
  halfStudentT: { make: ([n, s]) => halfStudentT(n!, s!), smooth: [0, 1] },
  cauchy: { make: ([m, s]) => cauchy(m!, s!), smooth: [0, 1] },
  halfCauchy: { make: ([s]) => halfCauchy(s!), smooth: [0] },
  laplace: { make: ([m, b]) => laplace(m!, b!), smooth: [0, 1] },
  logistic: { make: ([m, s]) => logistic(m!, s!), smooth: [0, 1] },
  logNormal: { make: ([m, s]) => logNormal(m!, s!), smooth: [0, 1] },
  exponential: { make: ([r]) => exponential(r!), smooth: [0] },
  gamma: { make: ([a, b]) => gamma(a!, b!), smooth: [0, 1] },
  inverseGamma: { make: ([a, b]) => inverseGamma(a!, b!), smooth: [0, 1] },
  chiSquared: { make: ([n]) => chiSquared(n!), smooth: [0] },
  beta: { make: ([a, b]) => beta(a!, b!), smooth: [0, 1] },
  uniform: { make: ([lo, hi]) => uniform(lo!, hi!), smooth: [0, 1] },
  weibull: { make: ([k, s]) => weibull(k!, s!), smooth: [0, 1] },
  truncatedNormal: { make: ([m, s, lo, hi]) => truncatedNormal(m!, s!, { lower: lo!, upper: hi! }), smooth: [0, 1, 2, 3] },
  skewNormal: { make: ([xi, w, a]) => skewNormal(xi!, w!, a!), smooth: [0, 1, 2] },
  bernoulli: { make: ([p]) => bernoulli(p!), smooth: [0], discrete: true },
  bernoulliLogit: { make: ([a]) => bernoulliLogit(a!), smooth: [0], discrete: true },
  binomial: { make: ([n, p]) => binomial(n!, p!), smooth: [1], discrete: true },
  binomialLogit: { make: ([n, a]) => binomialLogit(n!, a!), smooth: [1], discrete: true },
  poisson: { make: ([r]) => poisson(r!), smooth: [0], discrete: true },
  poissonLog: { make: ([e]) => poissonLog(e!), smooth: [0], discrete: true },
  negativeBinomial: { make: ([a, b]) => negativeBinomial(a!, b!), smooth: [0, 1], discrete: true },
  negativeBinomial2: { make: ([m, f]) => negativeBinomial2(m!, f!), smooth: [0, 1], discrete: true },
  gumbel: { make: ([m, b]) => gumbel(m!, b!), smooth: [0, 1] },
  frechet: { make: ([a, s]) => frechet(a!, s!), smooth: [0, 1] },
  rayleigh: { make: ([s]) => rayleigh(s!), smooth: [0] },
  pareto: { make: ([m, a]) => pareto(m!, a!), smooth: [0, 1] },
  paretoType2: { make: ([m, l, a]) => paretoType2(m!, l!, a!), smooth: [0, 1, 2] },
  logLogistic: { make: ([a, b]) => logLogistic(a!, b!), smooth: [0, 1] },
  inverseChiSquared: { make: ([n]) => inverseChiSquared(n!), smooth: [0] },
  scaledInverseChiSquared: { make: ([n, s]) => scaledInverseChiSquared(n!, s!), smooth: [0, 1] },
  betaProportion: { make: ([m, k]) => betaProportion(m!, k!), smooth: [0, 1] },
  expModNormal: { make: ([m, s, l]) => expModNormal(m!, s!, l!), smooth: [0, 1, 2] },
  skewDoubleExponential: { make: ([m, s, t]) => skewDoubleExponential(m!, s!, t!), smooth: [0, 1, 2] },
  vonMises: { make: ([m, k]) => vonMises(m!, k!), smooth: [0, 1] },
  discreteUniform: { make: ([lo, hi]) => discreteUniform(lo!, hi!), smooth: [], discrete: true },
  // The trials and the counts are leaves here, so the mass tables are sized by the bounds given.
  betaBinomial: { make: ([n, a, b]) => betaBinomial(n!, a!, b!, { maxN: 25 }), smooth: [1, 2], discrete: true },
  betaNegativeBinomial: { make: ([r, a, b]) => betaNegativeBinomial(r!, a!, b!, { maxCount: 20 }), smooth: [0, 1, 2], discrete: true },
  // Four trials, one parameter column each, stacked into the trials' axis.
  poissonBinomial: { make: (ts) => poissonBinomial(stack(ts, -1)), smooth: [0, 1, 2, 3], discrete: true },
};

// The fixture rows of a case as columns: x, then each parameter; the last two entries are the answers.
function table(name: string) {
  const rows = FIX[name]!.map((r) => r.map(num));
  const width = rows[0]!.length - 2;
  const col = (j: number) => Float64Array.from(rows, (r) => r[j]!);
  return { rows, width, col, lcdf: rows.map((r) => r[width]!), lccdf: rows.map((r) => r[width + 1]!) };
}

function expectClose(got: ArrayLike<number>, want: readonly number[], what: string): void {
  for (let i = 0; i < want.length; i++) {
    const g = got[i]!, w = want[i]!;
    if (g === w) continue;
    expect(Math.abs(g - w), `${what} row ${i}: got ${g}, want ${w}`).toBeLessThanOrEqual(1e-9 * (1 + Math.abs(w)));
  }
}

describe("lcdf and lccdf against SciPy", () => {
  test("every case has reference values, and every fixture a case", () => {
    expect(Object.keys(FIX).filter((k) => k !== "scipy").sort()).toEqual(Object.keys(CASES).sort());
  });

  for (const [name, c] of Object.entries(CASES)) {
    test(name, () => {
      const { width, col, lcdf, lccdf } = table(name);
      const leaves = Array.from({ length: width }, (_, j) => data(`c${j}`, [lcdf.length]));
      const bindings: Bindings = Object.fromEntries(leaves.map((_, j) => [`c${j}`, col(j)]));
      const [x, ...ps] = leaves;
      const d = c.make(ps);
      const [lo, hi] = interpret([d.lcdf!(x!), d.lccdf!(x!)], bindings);
      expectClose(lo!.data, lcdf, `${name} lcdf`);
      expectClose(hi!.data, lccdf, `${name} lccdf`);
    });
  }
});

describe("lcdf and lccdf gradients against central finite differences", () => {
  for (const [name, c] of Object.entries(CASES)) {
    test(name, () => {
      const { rows, width, col } = table(name);
      // Points where both tails are finite (inside the support), and not within 0.01 of a support edge
      // at 0, where the curvature ~1/x³ is beyond what a fixed finite-difference step resolves.
      const usable = (r: number[]) => Number.isFinite(r[width]!) && Number.isFinite(r[width + 1]!) && (c.discrete || Math.abs(r[0]!) >= 0.01);
      const keep = rows.map((r, i) => [r, i] as const).filter(([r]) => usable(r)).map(([, i]) => i);
      expect(keep.length).toBeGreaterThan(0);
      const pick = (j: number) => Float64Array.from(keep, (i) => col(j)[i]!);
      const differentiable = (j: number) => (j === 0 ? !c.discrete : c.smooth.includes(j - 1));
      const leaves = Array.from({ length: width }, (_, j) => (differentiable(j) ? param : data)(`c${j}`, [keep.length]));
      const bindings: Bindings = Object.fromEntries(leaves.map((_, j) => [`c${j}`, pick(j)]));
      const [x, ...ps] = leaves;
      const d = c.make(ps);
      const wrt = leaves.filter((_, j) => differentiable(j));
      for (const [which, f] of [["lcdf", d.lcdf!], ["lccdf", d.lccdf!]] as const) {
        const r = checkGrad(sum(f(x!)), wrt, bindings, { rtol: 1e-5 });
        if (!r.ok) throw new Error(`${name} ${which}: ${r.message}`);
      }
    });
  }
});

describe("the mass tables of the beta-binomial and beta-negative-binomial CDFs", () => {
  const n = data("n", [2]), y = data("y", [2]);
  const bindings: Bindings = { n: Float64Array.from([10, 30]), y: Float64Array.from([3, 4]) };

  test("a node n or count without a bound is refused with the option that fixes it", () => {
    expect(() => betaBinomial(n, 2, 3).lcdf!(y)).toThrow(/betaBinomial\(n, a, b, \{ maxN \}\)/);
    expect(() => betaNegativeBinomial(2, 3, 1.5).lccdf!(y)).toThrow(/betaNegativeBinomial\(r, alpha, beta, \{ maxCount \}\)/);
    expect(() => betaBinomial(10, 2, 3, { maxN: 2.5 })).toThrow(/maxN must be a non-negative integer/);
  });

  test("past the bound the CDFs are NaN, never a sum that misses counts", () => {
    const [lo, hi] = interpret([betaBinomial(n, 2, 3, { maxN: 20 }).lcdf!(y), betaNegativeBinomial(2, 3, 1.5, { maxCount: 3 }).lcdf!(y)], bindings);
    expect(Number.isFinite(lo!.data[0]!)).toBe(true);
    expect(lo!.data[1]).toBeNaN();
    expect(Number.isFinite(hi!.data[0]!)).toBe(true);
    expect(hi!.data[1]).toBeNaN();
  });

  test("a number n, or a number count, sizes the table itself", () => {
    const [a, b] = interpret([betaBinomial(10, 2, 3).lccdf!(y), betaNegativeBinomial(2, 3, 1.5).lcdf!(4)], bindings);
    const [c, d] = interpret([betaBinomial(n, 2, 3, { maxN: 30 }).lccdf!(y), betaNegativeBinomial(2, 3, 1.5, { maxCount: 4 }).lcdf!(y)], bindings);
    expect(a!.data[0]).toBeCloseTo(c!.data[0]!, 14);
    expect(b!.data[0]).toBeCloseTo(d!.data[1]!, 14);
  });
});

// Stan's core distributions (issue 13, item 2): log densities against the scipy/mpmath references in
// fixtures/distributions/stan-core.json (made by stan-core.py there), support and parameter checks,
// and gradients against central finite differences.
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { add, checkGrad, constant, data, logPhi, mT, mul, param, sum, type Node } from "@ppl/tensor";
import {
  betaNegativeBinomial, betaProportion, dirichletMultinomial, discreteUniform, expModNormal, frechet, gumbel, hurdleNegativeBinomial,
  hurdlePoisson, hypergeometric, inverseChiSquared, inverseWishart, inverseWishartCholesky, lkjCorr, lkjCov, logLogistic, matrixNormalPrecision,
  ModelError, multiGP, multiGPCholesky, multiStudentT, multiStudentTCholesky, orderedLogistic, orderedProbit, pareto, paretoType2,
  poissonBinomial, poissonLogNormal, rayleigh, scaledInverseChiSquared, skewDoubleExponential, vonMises, wishart, wishartCholesky,
  zeroInflatedNegativeBinomial, zeroInflatedPoisson, type Distribution,
} from "../src/index.ts";
import { logBesselI0 } from "../src/distributions/composed-special.ts";
import { close, columns, evaluate } from "./distributions-helpers.ts";

type Num = number | string;
interface Fixture {
  scalar: Record<string, { rows: number[][]; logpdf: Num[] }>;
  vector: Record<string, { rows: number[][]; logpdf: Num[] }>;
  matrix: Record<string, unknown> & {
    S: number[][]; X: number[][]; LS: number[][]; LX: number[][];
    wishart: { nu: number; logpdf: Num }; wishartCholesky: { nu: number; logpdf: Num };
    inverseWishart: { nu: number; logpdf: Num }; inverseWishartCholesky: { nu: number; logpdf: Num };
    multiStudentT: { nu: number; mu: number[]; y: number[][]; logpdf: Num[] };
    lkjCorr: { R: number[][]; cases: { eta: number; logpdf: Num }[] };
    lkjCorr2: { r: number; cases: { eta: number; logpdf: Num }[] };
    lkjCov: { C: number[][]; mu: number[]; sigma: number[]; cases: { eta: number; logpdf: Num }[] };
    dirichletMultinomial: { alpha: number[]; x: number[][]; logpdf: Num[] };
    multiGP: { Sigma: number[][]; L: number[][]; w: number[]; y: number[][]; logpdf: Num };
    matrixNormalPrecision: { Mu: number[][]; Sigma: number[][]; D: number[][]; y: number[][]; logpdf: Num };
  };
  special: Record<"logBesselI0" | "logPhi", { x: number[]; value: Num[] }>;
}

const fixture = JSON.parse(readFileSync(new URL("./fixtures/distributions/stan-core.json", import.meta.url), "utf8")) as Fixture;
const num = (v: Num): number => Number(v);
const mat = (rows: number[][]) => constant(rows.flat(), [rows.length, rows[0]!.length]);
const vec = (xs: number[]) => constant(xs, [xs.length]);

/** Constructors of the scalar families from their parameter columns, in the fixture's argument order. */
const scalarFamilies: Record<string, (p: Node[]) => Distribution> = {
  vonMises: ([m, k]) => vonMises(m!, k!),
  pareto: ([ym, a]) => pareto(ym!, a!),
  paretoType2: ([m, l, a]) => paretoType2(m!, l!, a!),
  gumbel: ([m, b]) => gumbel(m!, b!),
  frechet: ([a, s]) => frechet(a!, s!),
  rayleigh: ([s]) => rayleigh(s!),
  expModNormal: ([m, s, l]) => expModNormal(m!, s!, l!),
  skewDoubleExponential: ([m, s, t]) => skewDoubleExponential(m!, s!, t!),
  inverseChiSquared: ([n]) => inverseChiSquared(n!),
  scaledInverseChiSquared: ([n, s]) => scaledInverseChiSquared(n!, s!),
  logLogistic: ([a, b]) => logLogistic(a!, b!),
  betaProportion: ([m, k]) => betaProportion(m!, k!),
  discreteUniform: ([l, u]) => discreteUniform(l!, u!),
  hypergeometric: ([n, a, b]) => hypergeometric(n!, a!, b!),
  betaNegativeBinomial: ([r, a, b]) => betaNegativeBinomial(r!, a!, b!),
  zeroInflatedPoisson: ([t, l]) => zeroInflatedPoisson(t!, l!),
  zeroInflatedNegativeBinomial: ([t, m, f]) => zeroInflatedNegativeBinomial(t!, m!, f!),
  hurdlePoisson: ([t, l]) => hurdlePoisson(t!, l!),
  hurdleNegativeBinomial: ([t, m, f]) => hurdleNegativeBinomial(t!, m!, f!),
  poissonLogNormal: ([m, s]) => poissonLogNormal(m!, s!),
  poissonLogNormalWide: ([m, s]) => poissonLogNormal(m!, s!),
};

// Poisson-lognormal is a quadrature (documented accuracy 1e−7 relative at sigma ≤ 2, 1e−5 to sigma = 4); the others are closed forms.
const tolerance: Record<string, number> = { poissonLogNormal: 1e-7, poissonLogNormalWide: 1e-5 };

function expectValues(name: string, got: ArrayLike<number>, want: readonly Num[], tol: number): void {
  want.forEach((w, i) => {
    const ok = close(got[i]!, num(w), tol);
    expect(ok, `${name}[${i}]: got ${got[i]}, want ${num(w)}`).toBe(true);
  });
}

describe("log densities against scipy and mpmath references", () => {
  for (const [name, make] of Object.entries(scalarFamilies)) {
    test(name, () => {
      const { rows, logpdf } = fixture.scalar[name]!;
      const { nodes, bindings } = columns(rows);
      const [x, ...ps] = nodes;
      expectValues(name, evaluate(make(ps).logpdf(x!), bindings), logpdf, tolerance[name] ?? 1e-10);
    });
  }

  for (const [name, make] of [["orderedLogistic", orderedLogistic], ["orderedProbit", orderedProbit]] as const) {
    test(`${name}: every category, far tails, out-of-range categories, K = 2 and 3`, () => {
      for (const key of [name, `${name}K3`, `${name}K2`]) {
        const { rows, logpdf } = fixture.vector[key]!;
        // Rows are [y, eta, c1, ..., c_{K−1}]: eta and y per row, the cutpoints shared.
        const y = vec(rows.map((r) => r[0]!));
        const eta = vec(rows.map((r) => r[1]!));
        const d = make(eta, vec(rows[0]!.slice(2)));
        expectValues(key, evaluate(d.logpdf(y)), logpdf, 1e-10);
      }
    });
  }

  test("orderedLogistic and orderedProbit: cutpoints that are not increasing give −∞", () => {
    expect(evaluate(orderedLogistic(0, vec([0, 1, 0.5])).logpdf(2))[0]).toBe(-Infinity);
    expect(evaluate(orderedProbit(0, vec([1, 1])).logpdf(1))[0]).toBe(-Infinity);
    // Batched cutpoints: one ordered row, one not.
    const lp = evaluate(orderedLogistic(vec([0, 0]), mat([[-1, 1], [1, -1]])).logpdf(vec([2, 2])));
    expect(Number.isFinite(lp[0])).toBe(true);
    expect(lp[1]).toBe(-Infinity);
  });

  test("poissonBinomial", () => {
    const { rows, logpdf } = fixture.vector.poissonBinomial!;
    const d = poissonBinomial(vec(rows[0]!.slice(1)));
    expectValues("poissonBinomial", evaluate(d.logpdf(vec(rows.map((r) => r[0]!)))), logpdf, 1e-10);
    // A batch of two probability vectors, each entry against its own single-vector density.
    const other = [0.6, 0.2, 0.33, 0.8, 0.05];
    const batched = evaluate(poissonBinomial(mat([rows[0]!.slice(1), other])).logpdf(mat([[2, 2], [4, 4]])));
    const single = (p: number[], y: number) => evaluate(poissonBinomial(vec(p)).logpdf(y))[0]!;
    expectValues("poissonBinomial batch", batched, [single(rows[0]!.slice(1), 2), single(other, 2), single(rows[0]!.slice(1), 4), single(other, 4)], 1e-12);
  });

  test("wishart, inverseWishart and their Cholesky forms", () => {
    const f = fixture.matrix;
    expectValues("wishart", evaluate(wishart(f.wishart.nu, mat(f.S)).logpdf(mat(f.X))), [f.wishart.logpdf], 1e-10);
    expectValues("wishartCholesky", evaluate(wishartCholesky(f.wishartCholesky.nu, mat(f.LS)).logpdf(mat(f.LX))), [f.wishartCholesky.logpdf], 1e-10);
    expectValues("inverseWishart", evaluate(inverseWishart(f.inverseWishart.nu, mat(f.S)).logpdf(mat(f.X))), [f.inverseWishart.logpdf], 1e-10);
    expectValues(
      "inverseWishartCholesky",
      evaluate(inverseWishartCholesky(f.inverseWishartCholesky.nu, mat(f.LS)).logpdf(mat(f.LX))),
      [f.inverseWishartCholesky.logpdf],
      1e-10,
    );
    // A batch of matrices: the same matrix twice.
    const two = constant([...f.X.flat(), ...f.X.flat()], [2, 3, 3]);
    expectValues("wishart batch", evaluate(wishart(f.wishart.nu, mat(f.S)).logpdf(two)), [f.wishart.logpdf, f.wishart.logpdf], 1e-10);
  });

  test("multiStudentT and multiStudentTCholesky", () => {
    const f = fixture.matrix;
    const { nu, mu, y, logpdf } = f.multiStudentT;
    expectValues("multiStudentT", evaluate(multiStudentT(nu, vec(mu), mat(f.S)).logpdf(mat(y))), logpdf, 1e-10);
    expectValues("multiStudentTCholesky", evaluate(multiStudentTCholesky(nu, vec(mu), mat(f.LS)).logpdf(mat(y))), logpdf, 1e-10);
  });

  test("lkjCorr: the onion-method constant for K = 3, the Beta(eta, eta) form of K = 2", () => {
    const f = fixture.matrix;
    for (const c of f.lkjCorr.cases) expectValues(`lkjCorr eta=${c.eta}`, evaluate(lkjCorr(3, c.eta).logpdf(mat(f.lkjCorr.R))), [c.logpdf], 1e-10);
    const r = f.lkjCorr2.r;
    for (const c of f.lkjCorr2.cases) expectValues(`lkjCorr K=2 eta=${c.eta}`, evaluate(lkjCorr(2, c.eta).logpdf(mat([[1, r], [r, 1]]))), [c.logpdf], 1e-10);
  });

  test("lkjCov: Stan's lognormal standard deviations plus LKJ of the implied correlations", () => {
    const f = fixture.matrix.lkjCov;
    for (const c of f.cases) expectValues(`lkjCov eta=${c.eta}`, evaluate(lkjCov(vec(f.mu), vec(f.sigma), c.eta, 3).logpdf(mat(f.C))), [c.logpdf], 1e-10);
  });

  test("dirichletMultinomial, multiGP (both forms), matrixNormalPrecision", () => {
    const f = fixture.matrix;
    const dm = f.dirichletMultinomial;
    expectValues("dirichletMultinomial", evaluate(dirichletMultinomial(vec(dm.alpha)).logpdf(mat(dm.x))), dm.logpdf, 1e-10);
    const g = f.multiGP;
    expectValues("multiGP", evaluate(multiGP(mat(g.Sigma), vec(g.w)).logpdf(mat(g.y))), [g.logpdf], 1e-10);
    expectValues("multiGPCholesky", evaluate(multiGPCholesky(mat(g.L), vec(g.w)).logpdf(mat(g.y))), [g.logpdf], 1e-10);
    const m = f.matrixNormalPrecision;
    expectValues("matrixNormalPrecision", evaluate(matrixNormalPrecision(mat(m.Mu), mat(m.Sigma), mat(m.D)).logpdf(mat(m.y))), [m.logpdf], 1e-10);
  });
});

describe("composed special functions against scipy over their domains", () => {
  test("log I0 (series to 20, asymptotic above) matches log(i0e(κ)) + κ", () => {
    const { x, value } = fixture.special.logBesselI0;
    const k = data("k", [x.length]);
    expectValues("logBesselI0", evaluate(logBesselI0(k), { k: x }), value, 1e-13);
  });
  test("log Φ, which ordered probit and the exp-modified normal use, matches log_ndtr", () => {
    const { x, value } = fixture.special.logPhi;
    const z = data("z", [x.length]);
    // Relative to 1 + |value|: near x = 20 the value is 1e−89, where an absolute error of 1e−13 is all one can ask.
    expectValues("logPhi", evaluate(logPhi(z), { z: x }), value, 1e-13);
    // Deep in the upper tail log Φ(x) ≈ −Q(x): relative accuracy too.
    const at20 = evaluate(logPhi(20))[0]!;
    expect(Math.abs(at20 / num(value[x.indexOf(20)]!) - 1)).toBeLessThan(1e-12);
  });
});

describe("support and parameter checks", () => {
  test("−∞ outside the support", () => {
    const outside: [Distribution, Node | number][] = [
      [pareto(1, 2), 0.5],
      [paretoType2(1, 1, 2), 0.5],
      [frechet(2, 1), -1],
      [rayleigh(1), -0.1],
      [inverseChiSquared(3), -1],
      [scaledInverseChiSquared(3, 1), -2],
      [logLogistic(1, 2), -1],
      [betaProportion(0.3, 5), 1.5],
      [discreteUniform(1, 6), 7],
      [hypergeometric(5, 3, 4), 4],
      [hypergeometric(5, 3, 4), 0],
      [betaNegativeBinomial(2, 3, 4), -1],
      [zeroInflatedPoisson(0.2, 3), -1],
      [zeroInflatedNegativeBinomial(0.2, 3, 2), -1],
      [hurdlePoisson(0.2, 3), -2],
      [hurdleNegativeBinomial(0.2, 3, 2), -2],
      [poissonLogNormal(0, 1), -1],
      [poissonBinomial(vec([0.2, 0.4])), 3],
      [orderedLogistic(0, vec([-1, 1])), 4],
      [orderedProbit(0, vec([-1, 1])), 0],
      [wishart(3, mat([[1, 0], [0, 1]])), mat([[1, 0.5], [0.4, 1]])],
      [wishart(3, mat([[1, 0], [0, 1]])), mat([[1, 2], [2, 1]])],
      [inverseWishart(3, mat([[1, 0], [0, 1]])), mat([[-1, 0], [0, 1]])],
      [wishartCholesky(3, mat([[1, 0], [0, 1]])), mat([[1, 0.2], [0, 1]])],
      [inverseWishartCholesky(3, mat([[1, 0], [0, 1]])), mat([[-1, 0], [0.3, 1]])],
      [lkjCorr(2, 2), mat([[1.1, 0.3], [0.3, 1]])],
      [lkjCorr(2, 2), mat([[1, 0.3], [0.2, 1]])],
      [lkjCov(0, 1, 2, 2), mat([[1, 3], [3, 1]])],
    ];
    outside.forEach(([d, x], i) => expect(evaluate(d.logpdf(x))[0], `${d.name} (case ${i})`).toBe(-Infinity));
  });

  test("literal parameters out of range are ModelErrors naming the argument", () => {
    expect(() => pareto(0, 1)).toThrow(/pareto: yMin must be positive/);
    expect(() => paretoType2(0, 1, -1)).toThrow(/paretoType2: alpha must be positive/);
    expect(() => gumbel(0, 0)).toThrow(/gumbel: beta must be positive/);
    expect(() => vonMises(0, -1)).toThrow(/vonMises: kappa must be non-negative/);
    expect(() => skewDoubleExponential(0, 1, 1)).toThrow(/skewDoubleExponential: tau must be in \(0, 1\)/);
    expect(() => betaProportion(1, 2)).toThrow(/betaProportion: mu must be in \(0, 1\)/);
    expect(() => discreteUniform(3, 1)).toThrow(ModelError);
    expect(() => discreteUniform(0.5, 1)).toThrow(/discreteUniform: lower must be an integer/);
    expect(() => hypergeometric(10, 3, 4)).toThrow(/hypergeometric: N \(10\) draws exceed/);
    expect(() => zeroInflatedPoisson(1.5, 1)).toThrow(/zeroInflatedPoisson: theta must be in \[0, 1\]/);
    expect(() => hurdleNegativeBinomial(0.5, 1, 0)).toThrow(/hurdleNegativeBinomial: phi must be positive/);
    expect(() => wishart(1, mat([[1, 0], [0, 1]]))).toThrow(/wishart: nu must be greater than K − 1 = 1/);
    expect(() => wishart(3, vec([1, 2]))).toThrow(/wishart: S must be a square \[K,K\] matrix/);
    expect(() => lkjCorr(1, 1)).toThrow(ModelError);
    expect(() => orderedLogistic(0, 1)).toThrow(/orderedLogistic: the cutpoints must be a vector/);
    expect(() => multiStudentT(3, vec([0, 0, 0]), mat([[1, 0], [0, 1]]))).toThrow(/multiStudentT: mu has last axis 3/);
    expect(() => multiGP(mat([[1, 0], [0, 1]]), 1)).toThrow(/multiGP: w must be a vector/);
    expect(() => matrixNormalPrecision(mat([[0, 0]]), mat([[1, 0], [0, 1]]), mat([[1]]))).toThrow(/matrixNormalPrecision: Mu must be 2×1/);
    expect(() => dirichletMultinomial(vec([1, 2])).sample({ uniform: () => 0.5, normal: () => 0 })).toThrow(/needs the number of trials/);
  });

  test("matrix-variate priors give their parameter the constraint of their support", async () => {
    const { constraintOfSupport } = await import("../src/transforms/from-support.ts");
    expect(constraintOfSupport(wishart(3, mat([[1, 0], [0, 1]])).support, "wishart").name).toBe("cov_matrix");
    expect(constraintOfSupport(lkjCorr(3, 1).support, "lkj_corr").name).toBe("corr_matrix");
    expect(constraintOfSupport(wishartCholesky(3, mat([[1, 0], [0, 1]])).support, "wishart_cholesky").name).toBe("cholesky_factor_cov");
  });
});

const numArb = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
const P = 4; // points per gradient check: each leaf is a vector of 4

interface GradCase {
  name: string;
  /** x, then each parameter. */
  arb: fc.Arbitrary<number[]>;
  make: (p: Node[]) => Distribution;
  continuous: boolean;
}

const gradCases: GradCase[] = [
  { name: "vonMises (both series)", arb: fc.tuple(numArb(-3, 3), numArb(-1, 1), numArb(0.1, 45)), make: ([m, k]) => vonMises(m!, k!), continuous: true },
  { name: "pareto", arb: fc.tuple(numArb(2.1, 8), numArb(0.5, 2), numArb(0.3, 4)), make: ([m, a]) => pareto(m!, a!), continuous: true },
  { name: "paretoType2", arb: fc.tuple(numArb(1.1, 8), numArb(-1, 1), numArb(0.3, 3), numArb(0.3, 4)), make: ([m, l, a]) => paretoType2(m!, l!, a!), continuous: true },
  { name: "gumbel", arb: fc.tuple(numArb(-5, 5), numArb(-2, 2), numArb(0.5, 3)), make: ([m, b]) => gumbel(m!, b!), continuous: true },
  { name: "frechet", arb: fc.tuple(numArb(0.3, 6), numArb(0.5, 4), numArb(0.5, 3)), make: ([a, s]) => frechet(a!, s!), continuous: true },
  { name: "rayleigh", arb: fc.tuple(numArb(0.1, 6), numArb(0.5, 3)), make: ([s]) => rayleigh(s!), continuous: true },
  { name: "expModNormal", arb: fc.tuple(numArb(-12, 12), numArb(-2, 2), numArb(0.3, 2), numArb(0.2, 3)), make: ([m, s, l]) => expModNormal(m!, s!, l!), continuous: true },
  { name: "skewDoubleExponential", arb: fc.tuple(numArb(0.5, 5), numArb(-2, 0), numArb(0.5, 3), numArb(0.1, 0.9)), make: ([m, s, t]) => skewDoubleExponential(m!, s!, t!), continuous: true },
  { name: "inverseChiSquared", arb: fc.tuple(numArb(0.1, 5), numArb(0.5, 10)), make: ([n]) => inverseChiSquared(n!), continuous: true },
  { name: "scaledInverseChiSquared", arb: fc.tuple(numArb(0.1, 5), numArb(0.5, 10), numArb(0.3, 3)), make: ([n, s]) => scaledInverseChiSquared(n!, s!), continuous: true },
  { name: "logLogistic", arb: fc.tuple(numArb(0.1, 8), numArb(0.5, 3), numArb(0.5, 5)), make: ([a, b]) => logLogistic(a!, b!), continuous: true },
  { name: "betaProportion", arb: fc.tuple(numArb(0.1, 0.9), numArb(0.2, 0.8), numArb(1, 20)), make: ([m, k]) => betaProportion(m!, k!), continuous: true },
  { name: "betaNegativeBinomial", arb: fc.tuple(fc.constantFrom(0, 2, 9), numArb(0.5, 6), numArb(0.5, 5), numArb(0.5, 5)), make: ([r, a, b]) => betaNegativeBinomial(r!, a!, b!), continuous: false },
  { name: "zeroInflatedPoisson", arb: fc.tuple(fc.constantFrom(0, 1, 6), numArb(0.1, 0.8), numArb(0.3, 6)), make: ([t, l]) => zeroInflatedPoisson(t!, l!), continuous: false },
  { name: "zeroInflatedNegativeBinomial", arb: fc.tuple(fc.constantFrom(0, 1, 6), numArb(0.1, 0.8), numArb(0.3, 6), numArb(0.5, 5)), make: ([t, m, f]) => zeroInflatedNegativeBinomial(t!, m!, f!), continuous: false },
  { name: "hurdlePoisson", arb: fc.tuple(fc.constantFrom(0, 1, 6), numArb(0.1, 0.8), numArb(0.05, 6)), make: ([t, l]) => hurdlePoisson(t!, l!), continuous: false },
  { name: "hurdleNegativeBinomial", arb: fc.tuple(fc.constantFrom(0, 1, 6), numArb(0.1, 0.8), numArb(0.05, 6), numArb(0.5, 5)), make: ([t, m, f]) => hurdleNegativeBinomial(t!, m!, f!), continuous: false },
  { name: "poissonLogNormal", arb: fc.tuple(fc.constantFrom(0, 1, 4, 30), numArb(-1, 3), numArb(0.1, 1.5)), make: ([m, s]) => poissonLogNormal(m!, s!), continuous: false },
];

// Matrix arguments through maps onto their support, so that a finite-difference step in one entry stays in it.
const sym = (a: Node) => mul(0.5, add(a, mT(a)));
const lower = (a: Node) => mul(a, constant([1, 0, 1, 1], [2, 2]));

function checkCase(c: GradCase, seed: number): void {
  const draws = fc.sample(c.arb, { numRuns: P, seed });
  const width = draws[0]!.length;
  const leaves = Array.from({ length: width }, (_, j) => param(`v${j}`, [P]));
  const bindings = Object.fromEntries(leaves.map((_, j) => [`v${j}`, Float64Array.from(draws, (r) => r[j]!)]));
  const [x, ...ps] = leaves;
  const r = checkGrad(sum(c.make(ps).logpdf(x!)), c.continuous ? leaves : ps, bindings, { rtol: 1e-5 });
  if (!r.ok) throw new Error(`${c.name}: ${r.message}`);
}

describe("logpdf gradients against central finite differences", () => {
  gradCases.forEach((c, i) => test(c.name, () => {
    for (let s = 0; s < 3; s++) checkCase(c, 7000 + 100 * i + s);
  }));

  const structured: [string, () => { out: Node; wrt: Node[]; bindings: Record<string, number[]> }][] = [
    ["orderedLogistic", () => {
      const eta = param("eta", [6]), c = param("c", [3]);
      return { out: sum(orderedLogistic(eta, c).logpdf(constant([1, 2, 3, 4, 2, 3], [6]))), wrt: [eta, c], bindings: { eta: [0.3, -1, 2, 0.1, 5, -4], c: [-0.8, 0.4, 1.5] } };
    }],
    ["orderedProbit", () => {
      const eta = param("eta", [6]), c = param("c", [3]);
      return { out: sum(orderedProbit(eta, c).logpdf(constant([1, 2, 3, 4, 2, 3], [6]))), wrt: [eta, c], bindings: { eta: [0.3, -1, 2, 0.1, 5, -4], c: [-0.8, 0.4, 1.5] } };
    }],
    ["poissonBinomial", () => {
      const t = param("t", [4]);
      return { out: sum(poissonBinomial(t).logpdf(constant([0, 1, 2, 4], [4]))), wrt: [t], bindings: { t: [0.2, 0.7, 0.5, 0.9] } };
    }],
    ["multiStudentT", () => {
      const nu = param("nu"), mu = param("mu", [2]), s = param("s", [2, 2]), x = param("x", [3, 2]);
      return { out: sum(multiStudentT(nu, mu, s).logpdf(x)), wrt: [nu, mu, s, x], bindings: { nu: [4.5], mu: [0.5, -1], s: [2, 0.6, 0.6, 1], x: [0, 1, 1, -2, 2, 0.5] } };
    }],
    ["wishart", () => {
      const nu = param("nu"), s = param("s", [2, 2]), x = param("x", [2, 2]);
      return { out: wishart(nu, sym(s)).logpdf(sym(x)), wrt: [nu, s, x], bindings: { nu: [3.5], s: [2, 0.6, 0.6, 1], x: [1.2, -0.3, -0.3, 0.8] } };
    }],
    ["inverseWishart", () => {
      const nu = param("nu"), s = param("s", [2, 2]), x = param("x", [2, 2]);
      return { out: inverseWishart(nu, sym(s)).logpdf(sym(x)), wrt: [nu, s, x], bindings: { nu: [3.5], s: [2, 0.6, 0.6, 1], x: [1.2, -0.3, -0.3, 0.8] } };
    }],
    ["wishartCholesky", () => {
      const nu = param("nu"), l = param("l", [2, 2]), x = param("x", [2, 2]);
      return { out: wishartCholesky(nu, lower(l)).logpdf(lower(x)), wrt: [nu, l, x], bindings: { nu: [3.5], l: [1.4, 0, 0.4, 0.9], x: [1.1, 0, -0.3, 0.7] } };
    }],
    ["inverseWishartCholesky", () => {
      const nu = param("nu"), l = param("l", [2, 2]), x = param("x", [2, 2]);
      return { out: inverseWishartCholesky(nu, lower(l)).logpdf(lower(x)), wrt: [nu, l, x], bindings: { nu: [3.5], l: [1.4, 0, 0.4, 0.9], x: [1.1, 0, -0.3, 0.7] } };
    }],
    ["lkjCorr", () => {
      const eta = param("eta"), x = param("x", [3, 3]);
      return { out: lkjCorr(3, eta).logpdf(x), wrt: [eta], bindings: { eta: [1.7], x: [1, 0.3, -0.2, 0.3, 1, 0.4, -0.2, 0.4, 1] } };
    }],
    ["lkjCov", () => {
      const mu = param("mu", [2]), s = param("s", [2]), eta = param("eta"), x = param("x", [2, 2]);
      return { out: lkjCov(mu, s, eta, 2).logpdf(sym(x)), wrt: [mu, s, eta, x], bindings: { mu: [0.2, -0.1], s: [0.6, 1.1], eta: [2.5], x: [1.3, 0.4, 0.4, 0.9] } };
    }],
    ["dirichletMultinomial", () => {
      const a = param("a", [3]);
      return { out: dirichletMultinomial(a).logpdf(constant([2, 0, 5], [3])), wrt: [a], bindings: { a: [0.7, 2, 3.5] } };
    }],
    ["multiGP", () => {
      const s = param("s", [2, 2]), w = param("w", [3]), y = param("y", [3, 2]);
      return { out: multiGP(sym(s), w).logpdf(y), wrt: [s, w, y], bindings: { s: [1.5, 0.4, 0.4, 0.9], w: [0.5, 2, 1.3], y: [0.3, -0.7, 1.2, 0.1, -0.4, 0.9] } };
    }],
    ["matrixNormalPrecision", () => {
      const m = param("m", [2, 2]), s = param("s", [2, 2]), d = param("d", [2, 2]), y = param("y", [2, 2]);
      return {
        out: matrixNormalPrecision(m, sym(s), sym(d)).logpdf(y),
        wrt: [m, s, d, y],
        bindings: { m: [0.1, 0.2, -0.3, 0.5], s: [2, 0.6, 0.6, 1], d: [2, -0.3, -0.3, 0.7], y: [0.3, -0.7, 1.2, 0.1] },
      };
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

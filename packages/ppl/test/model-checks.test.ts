// What the model's build reveals about its data and arguments: indices read from data are checked
// against the axis they select from, a NaN datum read by a term is named, and every public
// model-building function refuses a wrongly typed argument with a ModelError thrown from the call
// (whose stack holds the caller's line), never a TypeError from deep inside.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { constant, param, scatterAdd, sub, cast, type Node } from "@ppl/tensor";
import { thrownBy } from "@ppl/tensor/testing";
import * as ppl from "../src/index.ts";
import { compileModel, data, DataError, halfNormal, lastInitialPoint, model, ModelError, nonFiniteTerm, normal } from "../src/index.ts";

const hierarchical = model({
  name: "h",
  data: { N: data.int(), G: data.int(), group: data.intVector("N"), y: data.vector("N") },
  build(m, d) {
    const a = m.param("a", normal(0, 1), { shape: [d.G] });
    m.observe(d.y, normal(a.at(d.group), 1));
  },
});
const hData = (group: number[]) => ({ N: group.length, G: 3, group, y: group.map((_, i) => i / 10) });

describe("indices read from data are checked when the model is built", () => {
  test("a 1-based group index past G names the entry, its value and the range 1..G", () => {
    expect(() => compileModel(hierarchical, hData([1, 2, 3, 3]))).not.toThrow();
    const e = thrownBy(() => compileModel(hierarchical, hData([1, 2, 4, 3])), DataError);
    expect(e.key).toBe("group");
    expect(e.message).toBe(
      `'group[3]' is 4, but it indexes G = 3 entries, so it must lie in 1..3 (1-based, as at() reads it); fix the entry; declaring the range in the data spec (lower: 1, upper: "G") makes the data check say so`,
    );
    expect(thrownBy(() => compileModel(hierarchical, hData([0, 1, 2, 3])), DataError).message).toMatch(/^'group\[1\]' is 0, but it indexes G = 3 entries, so it must lie in 1\.\.3/);
  });
  test("an index matrix names its entry by row and column; a scatter's indices are checked too", () => {
    const mm = model({
      name: "m",
      data: { K: data.int(), idx: data.array(2, 2, { int: true }) },
      build(m, d) {
        const w = m.param("w", normal(0, 1), { shape: [4] });
        m.factor(scatterAdd(w, cast(sub(d.idx.reshape([4]), 1), "i32"), 0, d.K));
      },
    });
    expect(() => compileModel(mm, { K: 3, idx: [[1, 2], [3, 1]] })).not.toThrow();
    expect(thrownBy(() => compileModel(mm, { K: 3, idx: [[1, 2], [3, 7]] }), DataError).message).toMatch(/^'idx\[2,2\]' is 7, but it indexes K = 3 entries, so it must lie in 1\.\.3/);
  });
  test("an index read by a generated quantity's distribution is checked too", () => {
    const gm = model({
      name: "g",
      data: { G: data.int(), M: data.int(), newGroup: data.intVector("M") },
      build(m, d) {
        const a = m.param("a", normal(0, 1), { shape: [d.G] });
        m.generated("y_new", normal(a.at(d.newGroup), 1));
      },
    });
    expect(() => compileModel(gm, { G: 2, M: 2, newGroup: [2, 1] })).not.toThrow();
    expect(thrownBy(() => compileModel(gm, { G: 2, M: 2, newGroup: [2, 3] }), DataError).message).toMatch(/^'newGroup\[2\]' is 3, but it indexes G = 2 entries, so it must lie in 1\.\.2/);
  });
  test("an index computed from parameters is left to the backends", () => {
    const pm = model({
      name: "p",
      data: {},
      build(m) {
        const x = m.param("x", normal(0, 1), { shape: [3] });
        const i = m.param("i", normal(0, 1));
        m.factor(x.at(cast(i, "i32").reshape([1])));
      },
    });
    expect(() => compileModel(pm, {})).not.toThrow();
  });
});

describe("a NaN datum read by a term of the log density", () => {
  const withNan = (y: (number | string)[]) => ({ N: y.length, G: 3, group: y.map((_, i) => (i % 3) + 1), y });
  test("observed: a DataError naming the entry and the term", () => {
    const e = thrownBy(() => compileModel(hierarchical, withNan([1, 2, "NaN", 4])), DataError);
    expect(e.key).toBe("y");
    expect(e.message).toBe("'y[3]' is NaN, and observe(y, normal) reads it: the log density would be NaN at every point. Remove the entry, or leave it out of the term (a missing value can be a parameter of the model)");
  });
  test("masked by the model, or not read at all: accepted", () => {
    const masked = model({
      name: "masked",
      data: { N: data.int(), y: data.vector("N"), unused: data.vector("N") },
      build(m, d) {
        const mu = m.param("mu", normal(0, 1));
        m.factor(d.y.isNan().select(0, normal(mu, 1).logpdf(d.y)));
      },
    });
    expect(() => compileModel(masked, { N: 3, y: [1, "NaN", 2], unused: ["NaN", 1, 1] })).not.toThrow();
  });
});

describe("nonFiniteTerm: which term is not finite at a point, and why", () => {
  const scaled = model({
    name: "scaled",
    data: { y: data.vector(3) },
    build(m, d) {
      const mu = m.param("mu", normal(0, 1));
      const s = m.param("s", normal(0, 1));
      m.observe(d.y, normal(mu, s.sub(10)));
      m.factor(mu.mul(0).sqrt());
    },
  });
  const c = compileModel(scaled, { y: [1, 2, 3] });
  test("the first term that is −∞ or NaN, the argument out of support, the declaration's line", () => {
    const found = nonFiniteTerm(c, [0.5, 0.5])!;
    expect(found.term.label).toBe("observe(y, normal)");
    expect(found.value).toBeNaN();
    expect(found.argument).toBe("normal: sigma is -9.5, but must be positive");
    expect(found.gradient).toBeUndefined();
    // The site's stack points at the observe call in this file.
    expect(found.term.site.stack).toMatch(/model-checks\.test\.ts:\d+/);
  });
  test("every term finite but a gradient not: the term and the coordinate", () => {
    const found = nonFiniteTerm(c, [0.5, 20])!;
    expect(found.term.label).toBe("m.factor(sqrt[])");
    expect(found.value).toBe(0);
    expect(found.gradient).toEqual({ wrt: "mu", value: NaN });
  });
  test("lastInitialPoint: the given point, or the last uniform draw in (−R, R)", () => {
    expect(Array.from(lastInitialPoint(2, 0, { seed: 1, initRadius: 2, given: [3, 4] }))).toEqual([3, 4]);
    const q = lastInitialPoint(2, 0, { seed: 1, initRadius: 0.5 });
    expect(q.every((x) => Math.abs(x) < 0.5)).toBe(true);
    expect(Array.from(lastInitialPoint(2, 0, { seed: 1, initRadius: 0.5 }))).toEqual(Array.from(q));
    expect(Array.from(lastInitialPoint(2, 1, { seed: 1, initRadius: 0.5 }))).not.toEqual(Array.from(q));
  });
});

// ——— arguments ———

const DISTRIBUTIONS = [
  "normal", "halfNormal", "studentT", "halfStudentT", "cauchy", "halfCauchy", "laplace", "logistic", "logNormal", "exponential", "gamma",
  "inverseGamma", "beta", "uniform", "weibull", "chiSquared", "truncatedNormal", "truncated", "skewNormal", "bernoulli", "bernoulliLogit",
  "binomial", "binomialLogit", "betaBinomial", "poisson", "poissonLog", "negativeBinomial", "negativeBinomial2", "categorical",
  "categoricalLogit", "multinomial", "dirichlet", "multivariateNormal", "multivariateNormalPrecision", "multivariateNormalCholesky",
  "lkjCholesky", "gaussianRandomWalk", "mixture", "custom", "orderedLogistic", "orderedProbit", "multiStudentT", "multiStudentTCholesky",
  "wishart", "wishartCholesky", "inverseWishart", "inverseWishartCholesky", "lkjCorr", "vonMises", "pareto", "paretoType2", "gumbel",
  "frechet", "rayleigh", "expModNormal", "skewDoubleExponential", "inverseChiSquared", "scaledInverseChiSquared", "logLogistic",
  "betaProportion", "discreteUniform", "hypergeometric", "betaNegativeBinomial", "zeroInflatedPoisson", "zeroInflatedNegativeBinomial",
  "hurdlePoisson", "hurdleNegativeBinomial", "dirichletMultinomial", "poissonLogNormal", "poissonBinomial", "multiGP", "multiGPCholesky",
  "matrixNormalPrecision", "lkjCov", "zeroInflatedPoissonLogit", "zeroInflatedNegativeBinomialLogit", "hurdlePoissonLogit",
  "hurdleNegativeBinomialLogit",
] as const;
const CONSTRAINTS = [
  "real", "lower", "positive", "upper", "interval", "unitInterval", "ordered", "positiveOrdered", "simplex", "unitVector", "choleskyCorr",
  "covMatrix", "choleskyFactorCov", "corrMatrix", "offsetMultiplier", "sumToZero", "rowStochastic", "columnStochastic",
] as const;
const DECLARATIONS = ["int", "real", "vector", "intVector", "matrix", "array"] as const;

type AnyFunction = (...args: unknown[]) => unknown;
const exported = ppl as unknown as Record<string, AnyFunction>;
const declarations = data as unknown as Record<string, AnyFunction>;

/** Arguments of every kind: valid ones (numbers, tensors, distributions, options) and wrong ones. */
const argument: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom<unknown>(0, 1, 2, 3, -1, 0.5, NaN, Infinity, "0", "x", "", null, undefined, true, {}, [], [1, 2], { lower: 0 }, { shape: [2] }),
  fc.constantFrom("vector", "matrix", "param", "scalar", "dist", "dists", "fn").map((k): unknown => {
    switch (k) {
      case "vector": return constant(1, [3]);
      case "matrix": return constant([2, 0.5, 0.5, 2], [2, 2]);
      case "param": return param("p", [2]);
      case "scalar": return param("s");
      case "dist": return normal(0, 1);
      case "dists": return [normal(0, 1), halfNormal(1)];
      default: return (x: Node) => x;
    }
  }),
);

/** Calls f; an error must be a ModelError thrown from this call (its stack names this file). */
function expectModelErrorOrValue(f: AnyFunction, args: unknown[], what: string): void {
  let error: unknown;
  try {
    const made = f(...args) as { bind?: (shape: number[]) => unknown } | undefined;
    // A constraint is bound to a shape when a parameter is declared: its checks run then.
    if (made !== undefined && typeof made.bind === "function" && !("logpdf" in made)) for (const s of [[], [3], [2, 2]]) made.bind(s);
    return;
  } catch (e) {
    error = e;
  }
  const context = `${what}(${args.map((a) => (typeof a === "object" && a !== null ? ((a as { op?: string }).op ?? (Array.isArray(a) ? "[…]" : "{…}")) : String(a))).join(", ")}): ${String(error)}`;
  expect(error, context).toBeInstanceOf(ModelError);
  expect((error as Error).stack, context).toContain("model-checks.test.ts");
}

describe("every public model-building function checks its arguments", () => {
  test("normal('0', 5) names the argument and its type", () => {
    expect(thrownBy(() => normal("0" as unknown as number, 5), ModelError).message).toBe(`normal: 'mu' must be a number or a tensor, got the string "0"; write 0 without quotes`);
    expect(thrownBy(() => ppl.multivariateNormal([0, 0] as unknown as number, constant(1, [2, 2])), ModelError).message).toMatch(/multivariateNormal: 'mu' must be a number or a tensor, got an array of 2; make a list of numbers a tensor with constant/);
  });
  test("fuzz: distributions, constraints and data declarations called with arguments of every kind give a value or a ModelError", () => {
    const functions: [string, AnyFunction][] = [
      ...DISTRIBUTIONS.map((n): [string, AnyFunction] => [n, exported[n]!]),
      ...CONSTRAINTS.map((n): [string, AnyFunction] => [n, exported[n]!]),
      ...DECLARATIONS.map((n): [string, AnyFunction] => [`data.${n}`, declarations[n]!]),
    ];
    for (const [name, f] of functions) expect(typeof f, name).toBe("function");
    fc.assert(
      fc.property(fc.constantFrom(...functions), fc.array(argument, { maxLength: 4 }), ([name, f], args) => expectModelErrorOrValue(f, args, name)),
      { seed: 48_4, numRuns: 4000 },
    );
  });
  test("fuzz: the builder's methods likewise", () => {
    const methods = ["param", "observe", "observeCensored", "factor", "deterministic", "generated", "get"] as const;
    fc.assert(
      fc.property(fc.constantFrom(...methods), fc.array(argument, { maxLength: 3 }), fc.constantFrom("x", "y", "", 3), (method, args, name) => {
        const mdl = model({
          name: "fuzz",
          data: {},
          build(m) {
            m.param("base", normal(0, 1));
            const call = (m as unknown as Record<string, AnyFunction>)[method]!.bind(m);
            call(...(method === "param" || method === "deterministic" || method === "generated" || method === "get" ? [name, ...args] : args));
          },
        });
        expectModelErrorOrValue(() => compileModel(mdl, {}), [], method);
      }),
      { seed: 48_5, numRuns: 1500 },
    );
  });
});

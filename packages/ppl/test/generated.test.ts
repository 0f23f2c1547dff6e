// Generated quantities, predictive draws and exact prior draws: the Philox streams each one reads,
// Stan's order and naming of their values, their moments against the closed forms (within 4 Monte
// Carlo standard errors, fixed seeds), and the one-line errors of what cannot be drawn.
import { describe, expect, test } from "vitest";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import { add, constant, exp, mul } from "@ppl/tensor";
import {
  compileModel, custom, data, dirichlet, generatedEvaluator, halfCauchy, interval, lower, model, ModelError, normal, ordered, positive,
  positiveOrdered, predictiveNames, priorSampler, simplex, uniform, unitVector, type CompiledModel, type ModelBuilder,
} from "../src/index.ts";
import { Purpose, seedKey, streamNormals } from "../src/internals.ts";

const EIGHT = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
const eightSpec = { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) };

/** Eight schools (non-centred), with `extra` declaring more in the same build. */
function eightSchools(extra: (m: ModelBuilder, nodes: { mu: ReturnType<ModelBuilder["param"]>; tau: ReturnType<ModelBuilder["param"]> }) => void = () => {}): CompiledModel {
  return compileModel(
    model({
      name: "eight",
      data: eightSpec,
      build(m, d) {
        const mu = m.param("mu", normal(0, 5));
        const tau = m.param("tau", halfCauchy(0, 5));
        const tt = m.param("theta_trans", normal(0, 1), { shape: [d.J] });
        const theta = m.deterministic("theta", add(mu, mul(tau, tt)));
        m.observe(d.y, normal(theta, d.sigma));
        extra(m, { mu, tau });
      },
    }),
    EIGHT,
  );
}

/** A one-parameter-block model without data, for the prior's cases. */
function priorOnly(build: (m: ModelBuilder) => void): CompiledModel {
  return compileModel(model({ name: "p", data: {}, build }), {});
}

/** A constrained draw of a compiled model at a fixed unconstrained point. */
function drawAt(c: CompiledModel, seed: number): Float64Array {
  const q = Float64Array.from({ length: c.dim }, (_, i) => Math.sin(seed * 7 + i * 1.3));
  return c.generatedAt(q);
}

const col = (c: CompiledModel, name: string) => c.constrainedNames().indexOf(name);

/** n prior draws of chain 0, one array per column of constrainedNames(). */
function priorColumns(c: CompiledModel, seed: number, n: number): Record<string, Float64Array> {
  const s = priorSampler(c, seed);
  const names = c.constrainedNames();
  const out = Object.fromEntries(names.map((nm) => [nm, new Float64Array(n)]));
  for (let i = 0; i < n; i++) {
    const v = s.at(0, i);
    names.forEach((nm, j) => (out[nm]![i] = v[j]!));
  }
  return out;
}

/** |mean − mu| within 4 standard errors, with the sd given. */
function expectMean(xs: ArrayLike<number>, mu: number, sd: number): void {
  let m = 0;
  for (let i = 0; i < xs.length; i++) m += xs[i]!;
  m /= xs.length;
  expect(Math.abs(m - mu) / (sd / Math.sqrt(xs.length)), `mean ${m} vs ${mu}`).toBeLessThan(4);
}

/** |variance − v| within 4 standard errors (from the sample's fourth central moment). */
function expectVariance(xs: ArrayLike<number>, v: number): void {
  const n = xs.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += xs[i]!;
  m /= n;
  let s2 = 0, m4 = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - m;
    s2 += d * d;
    m4 += d ** 4;
  }
  s2 /= n - 1;
  m4 /= n;
  expect(Math.abs(s2 - v) / Math.sqrt((m4 - s2 * s2) / n), `variance ${s2} vs ${v}`).toBeLessThan(4);
}

/** The message of the ModelError that `f` throws. */
function modelErrorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ModelError);
    return (e as Error).message;
  }
  throw new Error("expected a ModelError");
}

describe("generated quantities and predictive draws", () => {
  test("y_rep of observe(d.y, normal(theta, d.sigma)) is theta + sigma·z, z the Predictive stream of (seed, chain, draw, term 0)", () => {
    const c = eightSchools();
    const ev = generatedEvaluator(c, { seed: 77, predictive: true });
    expect(ev.names).toEqual(Array.from({ length: 8 }, (_, i) => `y_rep[${i + 1}]`));
    expect(ev.predictiveNames).toEqual(["y_rep"]);
    for (const [chain, draw] of [[0, 0], [2, 41]] as const) {
      const x = drawAt(c, chain + draw);
      const got = Array.from(ev.at(chain, draw, x));
      const z = new Float64Array(8);
      streamNormals(seedKey(77), chain, draw, Purpose.Predictive, 0, z);
      got.forEach((v, j) => expect(v).toBeCloseTo(x[col(c, `theta[${j + 1}]`)]! + EIGHT.sigma[j]! * z[j]!, 12));
    }
  });

  test("a function reads the draw and its own Generated stream (sub = the quantity's position)", () => {
    const c = eightSchools((m, { mu, tau }) => {
      m.generated("mu_new", normal(mu, tau));
      m.generated("z", (draw, rng) => draw.number(mu) + rng.normal());
    });
    const ev = generatedEvaluator(c, { seed: 5 });
    expect(ev.names).toEqual(["mu_new", "z"]);
    const x = drawAt(c, 3);
    const [muNew, zv] = ev.at(1, 9, x);
    const n0 = new Float64Array(1), n1 = new Float64Array(1);
    streamNormals(seedKey(5), 1, 9, Purpose.Generated, 0, n0);
    streamNormals(seedKey(5), 1, 9, Purpose.Generated, 1, n1);
    expect(muNew).toBeCloseTo(x[0]! + x[1]! * n0[0]!, 12);
    expect(zv).toBe(x[0]! + n1[0]!);
  });

  test("values are written in Stan's order (first index fastest); draw.get gives earlier quantities and deterministics", () => {
    const c = eightSchools((m, { mu }) => {
      m.generated("M", (draw) => [[draw.number(mu), 2, 3], [4, 5, 6]], { shape: [2, 3] });
      m.generated("t3", (draw) => draw.get("theta").data[2]! + draw.get("M").data[1]!);
    });
    const ev = generatedEvaluator(c, { seed: 1 });
    expect(ev.names).toEqual(["M[1,1]", "M[2,1]", "M[1,2]", "M[2,2]", "M[1,3]", "M[2,3]", "t3"]);
    const x = drawAt(c, 1);
    const got = Array.from(ev.at(0, 0, x));
    expect(got.slice(0, 6)).toEqual([x[0]!, 4, 2, 5, 3, 6]);
    expect(got[6]).toBeCloseTo(x[col(c, "theta[3]")]! + 2, 12);
  });

  test("the same seed, chain and draw give the same values; another chain or seed others", () => {
    const c = eightSchools();
    const x = drawAt(c, 2);
    const a = Array.from(generatedEvaluator(c, { seed: 3, predictive: true }).at(0, 5, x));
    expect(Array.from(generatedEvaluator(c, { seed: 3, predictive: true }).at(0, 5, x))).toEqual(a);
    expect(Array.from(generatedEvaluator(c, { seed: 3, predictive: true }).at(1, 5, x))).not.toEqual(a);
    expect(Array.from(generatedEvaluator(c, { seed: 4, predictive: true }).at(0, 5, x))).not.toEqual(a);
  });

  test("predictive names: <field>_rep for a whole data field observed once, obs<k>_rep otherwise", () => {
    const c = compileModel(
      model({
        name: "two",
        data: { N: data.int(), y: data.vector("N"), w: data.vector("N", { lower: 0 }) },
        build(m, d) {
          const mu = m.param("mu", normal(0, 1));
          m.observe(d.y, normal(mu, 1));
          m.observe(exp(d.w), normal(mu, 2));
          m.observe(d.w, normal(mu, 3));
          m.observe(d.w, normal(mu, 4));
        },
      }),
      { N: 2, y: [1, 2], w: [0.5, 1] },
    );
    expect(predictiveNames(c)).toEqual(["y_rep", "obs2_rep", "obs3_rep", "obs4_rep"]);
    expect(generatedEvaluator(c, { seed: 1, predictive: true }).names).toEqual(["y_rep[1]", "y_rep[2]", "obs2_rep[1]", "obs2_rep[2]", "obs3_rep[1]", "obs3_rep[2]", "obs4_rep[1]", "obs4_rep[2]"]);
  });

  test("a scalar distribution observed against a vector is drawn per element", () => {
    const c = compileModel(
      model({ name: "iid", data: { N: data.int(), y: data.vector("N") }, build: (m, d) => void m.observe(d.y, normal(m.param("mu", normal(0, 1)), 1)) }),
      { N: 3, y: [1, 2, 3] },
    );
    const ev = generatedEvaluator(c, { seed: 8, predictive: true });
    const z = new Float64Array(3);
    streamNormals(seedKey(8), 0, 0, Purpose.Predictive, 0, z);
    expect(Array.from(ev.at(0, 0, [0.5]))).toEqual(Array.from(z, (v) => 0.5 + v));
  });

  test("mistakes are one-line ModelErrors naming the quantity and the fix", () => {
    const vec = eightSchools((m, { mu }) => m.generated("v", (draw) => [draw.number(mu), 1]));
    expect(modelErrorOf(() => generatedEvaluator(vec, { seed: 1 }).at(0, 2, drawAt(vec, 0)))).toBe(
      "generated quantity 'v' (chain 1, draw 3) gave 2 values, but it is declared a scalar (1 value); declare its shape: m.generated(name, fn, { shape: [...] })",
    );
    const bad = eightSchools((m) => m.generated("s", () => "x" as unknown as number));
    expect(modelErrorOf(() => generatedEvaluator(bad, { seed: 1 }).at(0, 0, drawAt(bad, 0)))).toMatch(/^generated quantity 's' \(chain 1, draw 1\) gave the string "x"/);
    const throws = eightSchools((m) => m.generated("t", (draw) => draw.get("nope").data[0]!));
    expect(modelErrorOf(() => generatedEvaluator(throws, { seed: 1 }).at(0, 0, drawAt(throws, 0)))).toMatch(
      /^generated quantity 't' \(chain 1, draw 1\): draw.get: 'nope' is not a parameter, deterministic or earlier generated quantity of 't' \(known: mu, tau, theta_trans, theta\)$/,
    );
    const clash = eightSchools((m, { mu }) => m.generated("y_rep", normal(mu, 1)));
    expect(modelErrorOf(() => generatedEvaluator(clash, { seed: 1, predictive: true }))).toMatch(/declares 'y_rep', the name of the predictive draws of one of its observe terms; rename/);
    expect(modelErrorOf(() => eightSchools((m) => m.generated("g", 3 as unknown as () => number)))).toMatch(/the second argument must be a distribution or a function/);
    expect(modelErrorOf(() => eightSchools((m) => m.generated("g", normal(m.get("theta"), 1), { shape: [2, 3] })))).toBe(
      "generated quantity 'g': its distribution normal has shape [8], which does not fit the shape [2,3]; give a shape that ends with [8], or leave it out",
    );
    expect(modelErrorOf(() => eightSchools((m, { mu }) => m.generated("mu", normal(mu, 1))))).toMatch(/the name 'mu' is used twice/);
  });
});

describe("exact prior draws", () => {
  const N = 10000;

  test("eight schools: mu ~ normal(0, 5), tau ~ halfCauchy(0, 5) (median 5), theta_trans ~ normal(0, 1), theta = mu + tau·theta_trans", () => {
    const c = eightSchools();
    const d = priorColumns(c, 11, N);
    expectMean(d["mu"]!, 0, 5);
    expectVariance(d["mu"]!, 25);
    const below = d["tau"]!.filter((t) => t <= 5).length / N;
    expect(Math.abs(below - 0.5) / Math.sqrt(0.25 / N)).toBeLessThan(4);
    expect(d["tau"]!.every((t) => t > 0)).toBe(true);
    expectMean(d["theta_trans[4]"]!, 0, 1);
    expectVariance(d["theta_trans[4]"]!, 1);
    for (let i = 0; i < 5; i++) expect(d["theta[2]"]![i]).toBeCloseTo(d["mu"]![i]! + d["tau"]![i]! * d["theta_trans[2]"]![i]!, 12);
  });

  test("a prior that reads an earlier parameter: a ~ normal(0, 1), b ~ normal(a, 1) has var(b) = 2 and cov(a, b) = 1", () => {
    const c = priorOnly((m) => void m.param("b", normal(m.param("a", normal(0, 1)), 1)));
    const d = priorColumns(c, 12, N);
    expectMean(d["b"]!, 0, Math.SQRT2);
    expectVariance(d["b"]!, 2);
    // b − a is the second draw's own noise: variance 1.
    expectVariance(d["b"]!.map((b, i) => b - d["a"]![i]!), 1);
  });

  test("a prior truncated to a constant constraint: normal(0, 1) on a positive parameter is the half-normal", () => {
    const c = priorOnly((m) => void m.param("s", normal(0, 1), { shape: [3], constraint: positive() }));
    const d = priorColumns(c, 13, N);
    const mean = Math.sqrt(2 / Math.PI);
    expect(d["s[2]"]!.every((v) => v > 0)).toBe(true);
    expectMean(d["s[2]"]!, mean, Math.sqrt(1 - 2 / Math.PI));
    expectVariance(d["s[2]"]!, 1 - 2 / Math.PI);
  });

  test("ordered and positive_ordered vectors of iid entries are sorted draws", () => {
    const c = priorOnly((m) => {
      m.param("c", normal(0, 1), { shape: [3], constraint: ordered() });
      m.param("p", normal(0, 1), { shape: [2], constraint: positiveOrdered() });
    });
    const d = priorColumns(c, 14, N);
    expect(d["c[1]"]!.every((v, i) => v < d["c[2]"]![i]! && d["c[2]"]![i]! < d["c[3]"]![i]!)).toBe(true);
    // The smallest of 3 standard normals: mean −3/(2√π), variance 1 + √3/(2π) − 9/(4π).
    const minVar = 1 + Math.sqrt(3) / (2 * Math.PI) - 9 / (4 * Math.PI);
    expectMean(d["c[1]"]!, -3 / (2 * Math.sqrt(Math.PI)), Math.sqrt(minVar));
    expectVariance(d["c[1]"]!, minVar);
    // The smaller of 2 half-normals: P(min > t) = 4(1 − Φ(t))², so E = ∫ 4(1 − Φ)² dt and E[min²] = ∫ 8t(1 − Φ)² dt.
    expect(d["p[1]"]!.every((v, i) => v > 0 && v < d["p[2]"]![i]!)).toBe(true);
    let m1 = 0, m2 = 0;
    const h = 1e-4;
    for (let t = h / 2; t < 12; t += h) {
      const tail = 1 - normalCdf(t, 0, 1);
      m1 += 4 * tail * tail * h;
      m2 += 8 * t * tail * tail * h;
    }
    expectMean(d["p[1]"]!, m1, Math.sqrt(m2 - m1 * m1));
    expectVariance(d["p[1]"]!, m2 - m1 * m1);
  });

  test("flat priors with a proper uniform: interval (uniform), simplex (Dirichlet(1)), unit vector (the sphere)", () => {
    const c = priorOnly((m) => {
      m.param("u", { constraint: interval(2, 5) });
      m.param("w", { shape: [3], constraint: simplex() });
      m.param("v", { shape: [3], constraint: unitVector() });
    });
    const d = priorColumns(c, 15, N);
    expectMean(d["u"]!, 3.5, Math.sqrt(0.75));
    expectVariance(d["u"]!, 0.75);
    expectMean(d["w[2]"]!, 1 / 3, Math.sqrt(1 / 18));
    expectVariance(d["w[2]"]!, 1 / 18);
    for (let i = 0; i < 10; i++) {
      expect(d["w[1]"]![i]! + d["w[2]"]![i]! + d["w[3]"]![i]!).toBeCloseTo(1, 12);
      expect(Math.hypot(d["v[1]"]![i]!, d["v[2]"]![i]!, d["v[3]"]![i]!)).toBeCloseTo(1, 12);
    }
    // Uniform on the sphere in 3 dimensions: each coordinate is uniform on (−1, 1).
    expectMean(d["v[3]"]!, 0, Math.sqrt(1 / 3));
    expectVariance(d["v[3]"]!, 1 / 3);
  });

  test("a Dirichlet prior on a simplex is drawn as is", () => {
    const c = priorOnly((m) => void m.param("w", dirichlet(constant([2, 3, 5], [3]))));
    const d = priorColumns(c, 16, N);
    // Dirichlet(2, 3, 5): w3 ~ Beta(5, 5), mean 1/2, variance 25/(100·11).
    expectMean(d["w[3]"]!, 0.5, Math.sqrt(25 / 1100));
    expectVariance(d["w[3]"]!, 25 / 1100);
  });

  test("the same seed gives the same prior draws; chains and draws read distinct streams", () => {
    const c = eightSchools();
    const a = Array.from(priorSampler(c, 21).at(1, 7));
    expect(Array.from(priorSampler(c, 21).at(1, 7))).toEqual(a);
    expect(Array.from(priorSampler(c, 21).at(0, 7))).not.toEqual(a);
    expect(Array.from(priorSampler(c, 21).at(1, 8))).not.toEqual(a);
  });

  test("what has no exact prior draw is a ModelError naming the term", () => {
    const cannot = "model 'p': its prior cannot be drawn directly";
    expect(modelErrorOf(() => priorSampler(priorOnly((m) => m.factor(mul(-0.5, m.param("x", normal(0, 1))))), 1))).toBe(
      `${cannot}: the term m.factor(mul[]) is a log density with no sampler`,
    );
    const observesParam = compileModel(
      model({ name: "p", data: {}, build: (m) => m.observe(m.param("theta", { shape: [2] }), normal(0, 1)) }),
      {},
    );
    expect(modelErrorOf(() => priorSampler(observesParam, 1))).toBe(
      `${cannot}: the term observe(u:theta, normal) gives a parameter a density outside m.param, which has no sampler; give the parameter that distribution as its prior, m.param(name, dist)`,
    );
    expect(modelErrorOf(() => priorSampler(priorOnly((m) => void m.param("x")), 1))).toBe(
      `${cannot}: parameter 'x' has no prior (flat on real), which is improper and has no draws; give it a proper prior, m.param("x", dist)`,
    );
    expect(modelErrorOf(() => priorSampler(priorOnly((m) => void m.param("x", custom((x) => mul(-0.5, mul(x, x))))), 1))).toMatch(
      new RegExp(`^${cannot}: parameter 'x' cannot be drawn from its prior custom: custom: a custom distribution has no sampler`),
    );
    const dependent = priorOnly((m) => {
      const a = m.param("a", normal(0, 1));
      m.param("b", normal(0, 1), { constraint: lower(a) });
    });
    expect(modelErrorOf(() => priorSampler(dependent, 1))).toMatch(
      new RegExp(`^${cannot}: parameter 'b' has the prior normal and the constraint lower, whose bounds depend on other parameters; the model's prior is then not the prior truncated`),
    );
    expect(modelErrorOf(() => priorSampler(priorOnly((m) => void m.param("v", normal(0, 1), { shape: [3], constraint: unitVector() })), 1))).toMatch(
      new RegExp(`^${cannot}: parameter 'v' has the prior normal on a unit vector`),
    );
  });

  test("a truncation that leaves almost no mass is refused after 1000 tries, naming the parameter", () => {
    const c = priorOnly((m) => void m.param("x", normal(0, 1), { constraint: lower(8) }));
    expect(modelErrorOf(() => priorSampler(c, 1))).toBe(
      "model 'p': its prior cannot be drawn directly: fewer than 1 in 1000 draws of the prior normal of parameter 'x' fall inside its constraint lower; give it a prior whose support is the constraint",
    );
  });

  test("a prior whose support reads another parameter is drawn as is: b ~ uniform(a, a + 1)", () => {
    const c = priorOnly((m) => {
      const a = m.param("a", normal(0, 1));
      m.param("b", uniform(a, add(a, 1)));
    });
    const d = priorColumns(c, 17, N);
    const u = d["b"]!.map((b, i) => b - d["a"]![i]!);
    expect(u.every((v) => v > 0 && v < 1)).toBe(true);
    expectMean(u, 0.5, Math.sqrt(1 / 12));
    expectVariance(u, 1 / 12);
  });
});

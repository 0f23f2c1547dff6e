import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { add, constant, mul, sub } from "@ppl/tensor";
import {
  choleskyCorr, compileModel, data, halfCauchy, interval, isModel, lkjCholesky, model, ModelError, normal, poisson, positive, simplex,
  unitInterval,
} from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const DIR = new URL("../../../../shared/posteriordb/", import.meta.url).pathname;
const eightData = JSON.parse(readFileSync(`${DIR}eight_schools-eight_schools_noncentered/data.json`, "utf8")) as { J: number; y: number[]; sigma: number[] };

const lnorm = (x: number, m: number, s: number) => -0.5 * ((x - m) / s) ** 2 - Math.log(s) - 0.5 * Math.log(2 * Math.PI);

describe("eight schools by hand", () => {
  test("the log density at a hand-picked point equals the formula written out", () => {
    const c = compileModel(eightSchools, eightData);
    expect(c.dim).toBe(10);
    expect(c.paramInfo.map((p) => [p.name, p.offset, p.unconstrainedSize, p.transform])).toEqual([
      ["mu", 0, 1, "real"],
      ["tau", 1, 1, "positive"],
      ["theta_trans", 2, 8, "real"],
    ]);
    const mu = 1.3, tau = 2.1;
    const tt = [0.5, -0.3, 1.2, 0.1, -1.1, 0.7, 0.05, -0.6];
    const q = [mu, Math.log(tau), ...tt];
    // Priors (normalized, half-Cauchy with its factor 2), the log-Jacobian of tau = exp(u), the likelihood.
    let want = lnorm(mu, 0, 5) + Math.log(2) - Math.log(Math.PI * 5 * (1 + (tau / 5) ** 2)) + Math.log(tau);
    tt.forEach((t, j) => {
      want += lnorm(t, 0, 1) + lnorm(eightData.y[j]!, mu + tau * t, eightData.sigma[j]!);
    });
    expect(c.logDensityAt(q)).toBeCloseTo(want, 10);
    // Reported: mu, tau, theta_trans, then theta = mu + tau·theta_trans.
    const names = c.constrainedNames();
    expect(names.slice(0, 3)).toEqual(["mu", "tau", "theta_trans[1]"]);
    expect(names.slice(-8)).toEqual(Array.from({ length: 8 }, (_, j) => `theta[${j + 1}]`));
    const g = c.generatedAt(q);
    expect(g[1]).toBeCloseTo(tau, 14);
    tt.forEach((t, j) => expect(g[10 + j]).toBeCloseTo(mu + tau * t, 12));
  });
  test("unconstrain inverts the transforms", () => {
    const c = compileModel(eightSchools, eightData);
    const q = c.unconstrain({ mu: 2, tau: 3, theta_trans: [1, 2, 3, 4, 5, 6, 7, 8] });
    expect(Array.from(q)).toEqual([2, Math.log(3), 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(() => c.unconstrain({ tau: -1 })).toThrow(/'tau' = -1 violates its constraint \(positive\)/);
    expect(() => c.unconstrain({ sigma: 1 })).toThrow(/'sigma' is not a parameter/);
    expect(() => c.unconstrain({ theta_trans: [1, 2] })).toThrow(/'theta_trans' has 2 values, the parameter has shape \[8\]/);
  });
  test("the log density graph reads data through data leaves and one parameter q", () => {
    const c = compileModel(eightSchools, eightData);
    expect(c.q.op).toBe("param");
    expect(c.q.shape).toEqual([10]);
    expect(Object.keys(c.dataBindings).sort()).toEqual(["sigma", "y"]);
  });
});

describe("parameters, constraints and terms", () => {
  test("flat priors: the log density is the log-Jacobian alone; a dependent bound's map is triangular", () => {
    // Like garch: alpha1 in (0,1), beta1 in (0, 1 − alpha1), no priors. Then lp(q) = log|det ∂(alpha1, beta1)/∂q|.
    const mdl = model({
      name: "bounds",
      data: {},
      build(m) {
        const a = m.param("alpha1", { constraint: unitInterval() });
        m.param("beta1", { constraint: interval(0, sub(1, a)) });
      },
    });
    const c = compileModel(mdl, {});
    for (const q of [[0.3, -0.4], [-2, 1.5], [1, 0]]) {
      const f = (v: number[]) => c.generatedAt(v);
      const h = 1e-6;
      const J: number[][] = [[0, 0], [0, 0]];
      for (let j = 0; j < 2; j++) {
        const up = [...q], dn = [...q];
        up[j]! += h;
        dn[j]! -= h;
        const fu = f(up), fd = f(dn);
        for (let i = 0; i < 2; i++) J[i]![j] = (fu[i]! - fd[i]!) / (2 * h);
      }
      const logDet = Math.log(Math.abs(J[0]![0]! * J[1]![1]! - J[0]![1]! * J[1]![0]!));
      expect(c.logDensityAt(q)).toBeCloseTo(logDet, 6);
      const [a, b] = f(q);
      expect(b! > 0 && b! < 1 - a!).toBe(true);
    }
    expect(() => c.unconstrain({ alpha1: 0.6, beta1: 0.5 })).toThrow(/violates its constraint/);
    const q = c.unconstrain({ alpha1: 0.6, beta1: 0.3 });
    const back = c.generatedAt(q);
    expect(back[0]).toBeCloseTo(0.6, 12);
    expect(back[1]).toBeCloseTo(0.3, 12);
  });
  test("the transform comes from the prior's support unless a constraint is given", () => {
    const mdl = model({
      name: "support",
      data: {},
      build(m) {
        m.param("s", halfCauchy(1));
        m.param("w", { shape: [3], constraint: simplex() });
        m.param("L", lkjCholesky(3, 2));
        m.param("p", normal(0, 1), { constraint: positive() });
      },
    });
    const c = compileModel(mdl, {});
    expect(c.paramInfo.map((p) => [p.name, p.transform, p.unconstrainedSize, p.offset])).toEqual([
      ["s", "positive", 1, 0],
      ["w", "simplex", 2, 1],
      ["L", "cholesky_corr", 3, 3],
      ["p", "positive", 1, 6],
    ]);
    expect(c.dim).toBe(7);
  });
  test("matrices are reported in Stan's order (first index fastest) with 1-based names", () => {
    const mdl = model({ name: "corr", data: {}, build: (m) => void m.param("L", { shape: [3, 3], constraint: choleskyCorr() }) });
    const c = compileModel(mdl, {});
    expect(c.constrainedNames()).toEqual(["L[1,1]", "L[2,1]", "L[3,1]", "L[1,2]", "L[2,2]", "L[3,2]", "L[1,3]", "L[2,3]", "L[3,3]"]);
    const v = c.generatedAt([0.4, -0.3, 0.8]);
    expect(v[0]).toBe(1);
    expect(v[3]).toBe(0); // L[1,2]
    expect(v[1]).toBeCloseTo(Math.tanh(0.4), 14); // L[2,1]
    expect(v[1]! ** 2 + v[4]! ** 2).toBeCloseTo(1, 14); // row 2 has unit length
  });
  test("deterministic, factor, get and observe add up", () => {
    const mdl = model({
      name: "terms",
      data: { n: data.int(), y: data.vector("n"), k: data.intVector("n", { lower: 0 }) },
      build(m, d) {
        const mu = m.param("mu", normal(0, 1));
        m.deterministic("two_mu", mul(2, mu));
        m.factor(mul(-0.5, m.get("two_mu")));
        m.observe(d.y, normal(mu, 1));
        m.observe(d.k, poisson(add(mu, 3)));
      },
    });
    const c = compileModel(mdl, { n: 2, y: [0.5, -1], k: [2, 4] });
    const mu = 0.7;
    const lpois = (k: number, r: number) => k * Math.log(r) - r - Math.log([1, 1, 2, 6, 24][k]!);
    const want = lnorm(mu, 0, 1) - mu + lnorm(0.5, mu, 1) + lnorm(-1, mu, 1) + lpois(2, mu + 3) + lpois(4, mu + 3);
    expect(c.logDensityAt([mu])).toBeCloseTo(want, 12);
    expect(c.constrainedNames()).toEqual(["mu", "two_mu"]);
  });
  test("isModel recognizes models only", () => {
    expect(isModel(eightSchools)).toBe(true);
    expect(isModel({ name: "x", build() {} })).toBe(false);
    expect(isModel(null)).toBe(false);
  });
});

describe("ModelError for mistakes in the model, naming the thing and the fix", () => {
  const compileWith = (build: Parameters<typeof model>[0]["build"], spec = {}, json = {}) => () => compileModel(model({ name: "bad", data: spec, build }), json);
  test("duplicate names", () => {
    expect(compileWith((m) => {
      m.param("a", normal(0, 1));
      m.param("a", normal(0, 1));
    })).toThrow(/the name 'a' is used twice; give the parameter another name/);
    expect(compileWith((m) => void m.param("y", normal(0, 1)), { y: data.real() }, { y: 1 })).toThrow(/the name 'y' is used twice/);
  });
  test("a prior whose shape does not fit the parameter", () => {
    expect(compileWith((m) => void m.param("x", normal(constant([1, 2, 3], [3]), 1), { shape: [8] }))).toThrow(
      "parameter 'x': its prior normal has shape [3], which does not fit the parameter's shape [8]; make the prior's arguments scalars or of shape [8]",
    );
  });
  test("unknown options and arguments", () => {
    expect(compileWith((m) => void m.param("x", normal(0, 1), { shap: [3] } as never))).toThrow(/unknown option 'shap'; the options are shape and constraint/);
    expect(() => model({ name: "m", data: {}, build() {}, priors: 1 } as never)).toThrow(/unknown field 'priors'/);
  });
  test("a discrete prior on a parameter", () => {
    expect(compileWith((m) => void m.param("k", poisson(3)))).toThrow(/poisson is a distribution over integers; parameters must be continuous/);
  });
  test("a constraint that cannot take the parameter's shape", () => {
    expect(compileWith((m) => void m.param("w", { constraint: simplex() }))).toThrow(/parameter 'w': simplex: needs a vector parameter of length ≥ 2, got shape \[\]; pass \{ shape: \[K\] \}/);
  });
  test("an observation whose shape does not match", () => {
    expect(compileWith((m, d) => m.observe(d.y, normal(constant([1, 2, 3], [3]), 1)), { y: data.vector(4) }, { y: [1, 2, 3, 4] })).toThrow(
      /observe\(y, normal\): the value's shape \[4\] does not match the distribution's shape \[3\]/,
    );
  });
  test("get of an undeclared name; no parameters; bad names; sizes by non-int fields; reserved q", () => {
    expect(compileWith((m) => {
      m.param("a", normal(0, 1));
      m.get("b");
    })).toThrow(/get: no parameter or deterministic named 'b' has been declared yet \(declared: a\)/);
    expect(compileWith(() => {})).toThrow(/build declared no parameters/);
    expect(compileWith((m) => void m.param("2x", normal(0, 1)))).toThrow(/'2x' is not an identifier/);
    expect(() => model({ name: "m", data: { r: data.real(), v: data.vector("r") }, build() {} })).toThrow(/'v' is sized by 'r', which is not an int data field; declare r: data.int\(\)/);
    expect(() => model({ name: "m", data: { q: data.real() }, build() {} })).toThrow(/'q' is reserved/);
  });
  test("bad data reaches the caller as a DataError through compileModel", () => {
    expect(() => compileModel(eightSchools, { ...eightData, y: eightData.y.slice(0, 7) })).toThrow("'y' has 7 entries, the model expects J=8");
  });
});

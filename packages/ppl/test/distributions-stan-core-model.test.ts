// Stan's core distributions inside models (issue 13, item 2): priors whose supports give the
// parameters their transforms, observations of counts and ordinal outcomes, the compiled log density
// against the distributions' own log densities plus the transforms' Jacobians, generated quantities
// drawn from the new samplers, and a short NUTS run that recovers the prior's moments.
import { describe, expect, test } from "vitest";
import { constant, exp, type Operand } from "@ppl/tensor";
import {
  betaProportion, compileModel, data, frechet, generatedEvaluator, gumbel, hurdleNegativeBinomial, model, modelDensity, orderedLogistic, pareto,
  poissonLogNormal, sample, skewDoubleExponential, zeroInflatedPoisson, type Distribution,
} from "../src/index.ts";
import { evaluate } from "./distributions-helpers.ts";

const counts = [0, 0, 3, 1, 0, 7, 2, 0, 4, 1];
const grades = [1, 3, 2, 4, 4, 2, 1, 3, 3, 2];

const mixed = model({
  name: "stan_core_mixed",
  data: { N: data.int({ lower: 1 }), y: data.intVector("N", { lower: 0 }), g: data.intVector("N", { lower: 1, upper: 4 }) },
  build(m, d) {
    const loc = m.param("loc", gumbel(0.5, 1));
    const scale = m.param("scale", frechet(3, 2));
    const floor = m.param("floor", pareto(1.5, 4));
    const theta = m.param("theta", betaProportion(0.3, 8));
    const skew = m.param("skew", skewDoubleExponential(0, 1, 0.3));
    m.observe(d.y, zeroInflatedPoisson(theta, exp(loc)));
    m.observe(d.y, hurdleNegativeBinomial(theta, scale, floor));
    m.observe(d.y, poissonLogNormal(loc, scale));
    m.observe(d.g, orderedLogistic(skew, constant([-1, 0.5, 2], [3])));
    m.generated("y_zip", zeroInflatedPoisson(theta, exp(loc)), { shape: [d.N] });
  },
});
const dataValues = { N: counts.length, y: counts, g: grades };

describe("new families in a model", () => {
  test("the compiled log density is the sum of the distributions' log densities and the support transforms' Jacobians", () => {
    const c = compileModel(mixed, dataValues);
    const values = { loc: 0.4, scale: 1.7, floor: 2.2, theta: 0.35, skew: -0.3 };
    const q = c.unconstrain(values);
    const y = constant(counts, [counts.length]);
    const g = constant(grades, [grades.length]);
    const lp = (d: Distribution, x: Operand) => evaluate(d.logpdf(x)).reduce((s, v) => s + v, 0);
    const want =
      lp(gumbel(0.5, 1), values.loc) + lp(frechet(3, 2), values.scale) + lp(pareto(1.5, 4), values.floor) + lp(betaProportion(0.3, 8), values.theta) +
      lp(skewDoubleExponential(0, 1, 0.3), values.skew) +
      lp(zeroInflatedPoisson(values.theta, Math.exp(values.loc)), y) + lp(hurdleNegativeBinomial(values.theta, values.scale, values.floor), y) +
      lp(poissonLogNormal(values.loc, values.scale), y) + lp(orderedLogistic(values.skew, constant([-1, 0.5, 2], [3])), g) +
      // log Jacobians: exp for the positive scale, lower bound 1.5 + exp for the Pareto floor, logit for theta.
      Math.log(values.scale) + Math.log(values.floor - 1.5) + Math.log(values.theta * (1 - values.theta));
    expect(c.logDensityAt(q)).toBeCloseTo(want, 9);
  });

  test("generated quantities and predictive draws come from the new samplers, with their moments", () => {
    const c = compileModel(mixed, dataValues);
    const values = { loc: 0.9, scale: 1.7, floor: 2.2, theta: 0.35, skew: -0.3 };
    const x = c.generatedAt(c.unconstrain(values));
    const ev = generatedEvaluator(c, { seed: 17, predictive: true });
    const zip = zeroInflatedPoisson(values.theta, Math.exp(values.loc));
    const ordinal = orderedLogistic(values.skew, constant([-1, 0.5, 2], [3]));
    const pick = (prefix: string) => ev.names.flatMap((nm, j) => (nm.startsWith(prefix) ? [j] : []));
    const zipCols = pick("y_zip[");
    const ordinalCols = pick("g_rep[");
    expect(zipCols.length).toBe(counts.length);
    expect(ordinalCols.length).toBe(grades.length);
    const zipDraws: number[] = [], ordinalDraws: number[] = [];
    for (let i = 0; i < 3000; i++) {
      const v = ev.at(0, i, x);
      for (const j of zipCols) zipDraws.push(v[j]!);
      for (const j of ordinalCols) ordinalDraws.push(v[j]!);
    }
    const check = (draws: number[], mean: number, variance: number) => {
      const m = draws.reduce((a, b) => a + b, 0) / draws.length;
      expect(Math.abs(m - mean) / Math.sqrt(variance / draws.length), `mean ${m} vs ${mean}`).toBeLessThan(4);
    };
    expect(zipDraws.every((v) => Number.isInteger(v) && v >= 0)).toBe(true);
    expect(ordinalDraws.every((v) => [1, 2, 3, 4].includes(v))).toBe(true);
    check(zipDraws, evaluate(zip.mean!())[0]!, evaluate(zip.variance!())[0]!);
    check(ordinalDraws, evaluate(ordinal.mean!())[0]!, evaluate(ordinal.variance!())[0]!);
    // The zeros: theta + (1 − theta) e^{−λ}, a binomial proportion.
    const p0 = values.theta + (1 - values.theta) * Math.exp(-Math.exp(values.loc));
    const zeros = zipDraws.filter((v) => v === 0).length / zipDraws.length;
    expect(Math.abs(zeros - p0) / Math.sqrt((p0 * (1 - p0)) / zipDraws.length)).toBeLessThan(4);
  });

  test("NUTS on a prior of new families recovers their means (4 chains × 1000 draws, within 5 MCSE by ESS 400)", async () => {
    const prior = model({
      name: "stan_core_prior",
      data: {},
      build(m) {
        m.param("g", gumbel(1, 2));
        m.param("p", pareto(1.5, 9));
        m.param("b", betaProportion(0.3, 8));
      },
    });
    const c = compileModel(prior, {});
    const density = await modelDensity(c, { backend: "cpu" });
    const r = sample(density, { chains: 4, warmup: 500, draws: 1000, seed: 2026 });
    const names = c.constrainedNames();
    const want: Record<string, [number, number]> = {
      g: [1 + 2 * 0.5772156649015329, Math.PI * 2 / Math.sqrt(6)],
      p: [(9 * 1.5) / 8, Math.sqrt((1.5 * 1.5 * 9) / (64 * 7))],
      b: [0.3, Math.sqrt((0.3 * 0.7) / 9)],
    };
    const sums: Record<string, number> = { g: 0, p: 0, b: 0 };
    let n = 0;
    for (const chain of r.draws) {
      for (let i = 0; i < chain.length / c.dim; i++) {
        const v = c.generatedAt(chain.subarray(i * c.dim, (i + 1) * c.dim));
        for (const k of Object.keys(sums)) sums[k]! += v[names.indexOf(k)]!;
        n++;
      }
    }
    for (const [k, [mu, sd]] of Object.entries(want)) {
      const m = sums[k]! / n;
      // An effective sample size of 400 is a conservative floor for these well-conditioned one-dimensional targets.
      expect(Math.abs(m - mu) / (sd / Math.sqrt(400)), `${k}: mean ${m} vs ${mu}`).toBeLessThan(5);
    }
  });
});

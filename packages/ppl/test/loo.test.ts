// PSIS-LOO against R's loo 2.5.1: the fixtures in fixtures/loo/ were written by
// make-loo-fixtures.R (loo(ll, r_eff = relative_eff(exp(ll))) and loo_compare) and are read as is.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  fftNextGoodSize, gpdFit, loo, looCompare, paretoKCategory, paretoKCounts, paretoKWarnings, psis, psisTailLength, relativeEff,
  type PointwiseLogLik,
} from "../src/loo/index.ts";

const TOL = 1e-6;

type Num = number | "Inf" | "-Inf" | "NaN";

interface LooCase {
  case: string;
  draws: number;
  chains: number;
  observations: number;
  /** R's order: draw fastest, then chain, then observation. */
  log_lik: number[];
  r_eff: Num[];
  elpd_loo: number;
  se_elpd_loo: number;
  p_loo: number;
  se_p_loo: number;
  looic: number;
  se_looic: number;
  pointwise: { elpd_loo: Num[]; p_loo: Num[]; looic: Num[] };
  pareto_k: Num[];
  n_eff: Num[];
  pareto_k_counts: { good: number; ok: number; bad: number; very_bad: number };
}

interface CompareFixture {
  models: LooCase[];
  compare: { model: string; elpd_diff: number; se_diff: number; elpd_loo: number; se_elpd_loo: number; p_loo: number; se_p_loo: number; looic: number; se_looic: number }[];
}

function fixture<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(`./fixtures/loo/${name}`, import.meta.url), "utf8")) as T;
}

const toNumber = (v: Num): number => (typeof v === "number" ? v : Number(v === "Inf" ? Infinity : v === "-Inf" ? -Infinity : NaN));

/** The fixture's flat array as [observation][chain][draw]. */
function logLikOf(c: LooCase): PointwiseLogLik {
  return Array.from({ length: c.observations }, (_, i) =>
    Array.from({ length: c.chains }, (_, ch) => Float64Array.from(c.log_lik.slice((i * c.chains + ch) * c.draws, (i * c.chains + ch + 1) * c.draws))),
  );
}

/** |a − b| / |b| (absolute for b = 0); infinities must match exactly. */
function relError(a: number, b: number): number {
  if (!Number.isFinite(b)) return a === b ? 0 : Infinity;
  return b === 0 ? Math.abs(a) : Math.abs(a - b) / Math.abs(b);
}

function expectClose(actual: ArrayLike<number>, expected: readonly Num[], what: string): void {
  expect(actual.length, what).toBe(expected.length);
  expected.forEach((e, i) => expect(relError(actual[i]!, toNumber(e)), `${what}[${i + 1}]: ${actual[i]} vs ${e}`).toBeLessThan(TOL));
}

const CASES = ["loo-normal.json", "loo-large-k.json", "loo-short.json"].map((f) => fixture<LooCase>(f));

describe("loo against R's loo 2.5.1", () => {
  it("the fixtures cover several chains, every k category and a tail too short to fit", () => {
    const all = CASES.map((c) => c.pareto_k_counts);
    expect(all.reduce((a, c) => a + c.good, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.ok, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.bad, 0)).toBeGreaterThan(0);
    expect(all.reduce((a, c) => a + c.very_bad, 0)).toBeGreaterThan(0);
    expect(CASES.every((c) => c.chains > 1)).toBe(true);
    expect(CASES.some((c) => c.pareto_k.includes("Inf"))).toBe(true);
  });

  for (const c of CASES) {
    it(`${c.case}: r_eff, elpd_loo, p_loo, looic, their SEs, every pointwise value and every pareto_k to 1e-6`, () => {
      const r = loo(logLikOf(c));
      expectClose(r.r_eff, c.r_eff, "r_eff");
      for (const key of ["elpd_loo", "se_elpd_loo", "p_loo", "se_p_loo", "looic", "se_looic"] as const) {
        expect(relError(r[key], c[key]), `${key}: ${r[key]} vs ${c[key]}`).toBeLessThan(TOL);
      }
      expectClose(r.pointwise.elpd_loo, c.pointwise.elpd_loo, "pointwise elpd_loo");
      expectClose(r.pointwise.p_loo, c.pointwise.p_loo, "pointwise p_loo");
      expectClose(r.pointwise.looic, c.pointwise.looic, "pointwise looic");
      expectClose(r.pareto_k, c.pareto_k, "pareto_k");
      expectClose(r.n_eff, c.n_eff, "n_eff");
      expect(r.pareto_k_counts).toEqual(c.pareto_k_counts);
      expect(r.observations).toBe(c.observations);
      expect(r.draws).toBe(c.draws * c.chains);
    });
  }

  it("given r_eff values are used as they are", () => {
    const c = CASES[0]!;
    const ll = logLikOf(c);
    const ones = loo(ll, { rEff: new Float64Array(c.observations).fill(1) });
    expect(Array.from(ones.r_eff)).toEqual(new Array(c.observations).fill(1));
    // r_eff = 1 shortens the tail (3·sqrt(800) = 85 < 160), so some k differ from the default's.
    expect(Array.from(ones.pareto_k)).not.toEqual(Array.from(loo(ll).pareto_k));
  });

  it("rejects non-finite log-likelihood values and ragged draws, naming the observation", () => {
    expect(() => loo([[Float64Array.of(-1, -2, NaN, -1)]])).toThrow(/observation 1 is not finite at draw 3/);
    expect(() => loo([[Float64Array.of(-1, -2)], [Float64Array.of(-1)]])).toThrow(/observation 2 has 1 draws/);
    expect(() => loo([])).toThrow(/at least one observation/);
  });
});

describe("loo_compare against R's loo 2.5.1", () => {
  const f = fixture<CompareFixture>("loo-compare.json");
  it("orders the models best first with elpd_diff and se_diff to 1e-6", () => {
    const rows = looCompare(f.models.map((m) => ({ name: m.case, loo: loo(logLikOf(m)) })));
    expect(rows.map((r) => r.model)).toEqual(f.compare.map((r) => r.model));
    expect(rows[0]!.elpd_diff).toBe(0);
    expect(rows[0]!.se_diff).toBe(0);
    rows.forEach((row, i) => {
      const e = f.compare[i]!;
      for (const key of ["elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo", "p_loo", "se_p_loo", "looic", "se_looic"] as const) {
        expect(relError(row[key], e[key]), `${row.model} ${key}: ${row[key]} vs ${e[key]}`).toBeLessThan(TOL);
      }
    });
  });

  it("needs two models of the same observations", () => {
    const [a, b] = f.models.map((m) => loo(logLikOf(m)));
    expect(() => looCompare([{ name: "a", loo: a! }])).toThrow(/at least two/);
    const fewer = loo(logLikOf(f.models[1]!).slice(0, 5));
    expect(() => looCompare([{ name: "a", loo: a! }, { name: "b", loo: fewer }])).toThrow(/model 'b' has 5 observations/);
    expect(b!.observations).toBe(a!.observations);
  });
});

describe("PSIS parts", () => {
  it("the tail length is loo's n_pareto", () => {
    expect(psisTailLength(1, 1000)).toBe(Math.ceil(3 * Math.sqrt(1000)));
    expect(psisTailLength(0.01, 1000)).toBe(200);
    expect(psisTailLength(1, 20)).toBe(4);
  });

  it("gpdFit recovers the shape of a large generalized Pareto sample", () => {
    // Quantiles of GPD(k = 0.4, sigma = 2) at evenly spaced probabilities: a noiseless sample.
    const k = 0.4;
    const n = 4000;
    const x = Float64Array.from({ length: n }, (_, i) => (2 * Math.expm1(-k * Math.log1p(-(i + 0.5) / n))) / k);
    const fit = gpdFit(x);
    expect(fit.k).toBeGreaterThan(0.37);
    expect(fit.k).toBeLessThan(0.43);
    expect(fit.sigma).toBeGreaterThan(1.8);
    expect(fit.sigma).toBeLessThan(2.2);
  });

  it("psis leaves no weight above the largest raw weight and keeps the draws below the tail", () => {
    const ratios = Float64Array.from({ length: 200 }, (_, i) => Math.sin(i * 1.7) * 3 + (i % 7) * 0.1);
    const { logWeights, paretoK, tailLength } = psis(ratios, 1);
    const max = Math.max(...ratios);
    expect(tailLength).toBe(40);
    expect(Number.isFinite(paretoK)).toBe(true);
    for (const w of logWeights) expect(w).toBeLessThanOrEqual(max);
    const sorted = Array.from(ratios).sort((a, b) => a - b);
    const cutoff = sorted[200 - tailLength - 1]!;
    ratios.forEach((r, i) => {
      // (r − max) + max rounds in the last digits.
      if (r <= cutoff) expect(logWeights[i]).toBeCloseTo(r, 12);
      else expect(logWeights[i]).toBeGreaterThanOrEqual(cutoff - 1e-12);
    });
  });

  it("fftNextGoodSize and relativeEff of independent draws", () => {
    expect([1, 2, 7, 11, 77, 1000, 1001].map(fftNextGoodSize)).toEqual([2, 2, 8, 12, 80, 1000, 1024]);
    // Alternating draws are antithetic: ESS above the number of draws.
    const alt = [Float64Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : -1) + i * 1e-3)];
    expect(relativeEff(alt)).toBeGreaterThan(1);
    // A constant quantity: loo's ESS is S/2.
    expect(relativeEff([new Float64Array(50).fill(3), new Float64Array(50).fill(3)])).toBe(0.5);
  });

  it("k categories and warnings follow loo's cut points", () => {
    expect([0.5, 0.50001, 0.7, 0.71, 1, 1.2, Infinity].map(paretoKCategory)).toEqual(["good", "ok", "ok", "bad", "bad", "very_bad", "very_bad"]);
    expect(paretoKCounts([0.1, 0.6, 0.8, 2])).toEqual({ good: 1, ok: 1, bad: 1, very_bad: 1 });
    expect(paretoKWarnings([0.1, 0.6])).toEqual([]);
    const w = paretoKWarnings([0.1, 0.8, 2, 0.9]);
    expect(w).toHaveLength(2);
    expect(w[0]).toMatch(/^2 of 4 observations have a bad Pareto k \(0\.7 < k <= 1\): 2, 4/);
    expect(w[1]).toMatch(/^1 of 4 observations have a very bad Pareto k \(k > 1\): 3/);
  });
});

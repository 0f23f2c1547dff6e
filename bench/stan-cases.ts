/**
 * The medium cases of bench/cpu-vs-stan.ts (issue #49 item 5), each with its Stan program in
 * bench/stan/ and its data written once as a Stan JSON file that both sides read:
 * - logistic_n300 and logistic_n5000: bench/anchor-models.ts' anchorLogistic with D = 4
 *   (bench/stan/logistic.stan);
 * - ordered_logistic: K = 5 categories, N = 500, D = 4 predictors (bench/stan/ordered_logistic.stan);
 * - weibull_survival: N = 300 times, 37 of them (12 %) right-censored, D = 2 (bench/stan/weibull_survival.stan);
 * - hier_n10k_j200: the `hier` anchor (anchorHier) on ../shared/anchors/make_data.py's generator
 *   with N = 10,000 and J = 200 (bench/stan/hier.stan).
 * The synthetic data come from a seeded generator here (fixed seeds, so every run and both sides
 * see the same numbers); hier's from make_data.py's own hier_data (python3 with numpy).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { add, exp, matmul } from "../packages/tensor/src/index.ts";
import { data, halfNormal, model, normal, ordered, orderedLogistic, weibull, type Model } from "../packages/ppl/src/index.ts";
import { anchorHier, anchorLogistic } from "./anchor-models.ts";

/** Ordered logistic regression: y ∈ 1..K, P(y ≤ k) = logit⁻¹(c_k − X·beta). */
export const orderedLogisticModel = model({
  name: "ordered_logistic",
  data: { N: data.int({ lower: 1 }), D: data.int({ lower: 1 }), K: data.int({ lower: 2 }), X: data.matrix("N", "D"), y: data.intVector("N", { lower: 1 }) },
  build(m, d) {
    const beta = m.param("beta", normal(0, 1), { shape: [d.D] });
    const c = m.param("c", normal(0, 5), { shape: [d.K - 1], constraint: ordered() });
    m.observe(d.y, orderedLogistic(matmul(d.X, beta), c));
  },
});

/** Weibull survival (accelerated failure time) with right censoring: t ~ Weibull(alpha, exp(mu + X·beta)). */
export const weibullSurvivalModel = model({
  name: "weibull_survival",
  data: {
    N: data.int({ lower: 1 }), D: data.int({ lower: 1 }), X: data.matrix("N", "D"),
    t: data.vector("N", { lower: 0 }), censored: data.intVector("N", { lower: 0, upper: 1 }),
  },
  build(m, d) {
    const alpha = m.param("alpha", halfNormal(2));
    const mu = m.param("mu", normal(0, 5));
    const beta = m.param("beta", normal(0, 1), { shape: [d.D] });
    // A censored time is where follow-up ended: the event is later (Stan: weibull_lccdf).
    const limit = d.censored.eq(1).select(d.t, Infinity);
    m.observeCensored(d.t, weibull(alpha, exp(add(matmul(d.X, beta), mu))), { upper: limit });
  },
});

/** A case: its model, its Stan program and where its data file is made. */
export interface StanCase {
  readonly model: Model;
  readonly stan: string;
  readonly data: (dir: string) => Record<string, unknown>;
}

// mulberry32 and Box–Muller: a small seeded generator, so the data need no files to reproduce.
function generator(seed: number): { uniform: () => number; normal: () => number } {
  let a = seed >>> 0;
  const uniform = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  const normal = (): number => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
  return { uniform, normal };
}

const round6 = (x: number): number => Math.round(x * 1e6) / 1e6;

function logisticData(N: number, D: number, seed: number): Record<string, unknown> {
  const r = generator(seed);
  const beta = Array.from({ length: D }, () => r.normal());
  const X = Array.from({ length: N }, () => Array.from({ length: D }, () => round6(r.normal())));
  const y = X.map((row) => (r.uniform() < 1 / (1 + Math.exp(-(0.3 + row.reduce((s, x, j) => s + x * beta[j]!, 0)))) ? 1 : 0));
  return { N, D, X, y };
}

function orderedData(N: number, D: number, K: number, seed: number): Record<string, unknown> {
  const r = generator(seed);
  const beta = Array.from({ length: D }, () => r.normal());
  const c = [-2.5, -0.8, 0.6, 2.2].slice(0, K - 1);
  const X = Array.from({ length: N }, () => Array.from({ length: D }, () => round6(r.normal())));
  const y = X.map((row) => {
    const u = r.uniform();
    const latent = row.reduce((s, x, j) => s + x * beta[j]!, 0) + Math.log(u / (1 - u));
    return 1 + c.filter((ck) => latent > ck).length;
  });
  return { N, D, K, X, y };
}

function weibullData(N: number, D: number, seed: number): Record<string, unknown> {
  const r = generator(seed);
  const alpha = 1.5, mu = 1.0, beta = [0.5, -0.4].slice(0, D);
  const X = Array.from({ length: N }, () => Array.from({ length: D }, () => round6(r.normal())));
  const t: number[] = [], censored: number[] = [];
  for (const row of X) {
    const sigma = Math.exp(mu + row.reduce((s, x, j) => s + x * beta[j]!, 0));
    const event = sigma * Math.pow(-Math.log(r.uniform()), 1 / alpha);
    const followUp = 2 + 8 * r.uniform();
    censored.push(event > followUp ? 1 : 0);
    t.push(round6(Math.min(event, followUp)));
  }
  return { N, D, X, t, censored };
}

// make_data.py's hier_data at N = 10,000, J = 200 (its seed), as the anchor's numbers; g is 0-based there and here.
function hierData(N: number, J: number): Record<string, unknown> {
  const anchors = resolve(import.meta.dirname, "../../shared/anchors");
  const script = `import sys, json; sys.path.insert(0, ${JSON.stringify(anchors)}); from make_data import hier_data; g, x, u, y = hier_data(${N}, ${J}); ` +
    `print(json.dumps(dict(N=${N}, J=${J}, g=[int(v) for v in g], x=[float(v) for v in x], u=[float(v) for v in u], y=[float(v) for v in y])))`;
  return JSON.parse(execFileSync("python3", ["-c", script], { encoding: "utf8", maxBuffer: 64 << 20 })) as Record<string, unknown>;
}

/** The cases by name. */
export const STAN_CASES: Readonly<Record<string, StanCase>> = {
  logistic_n300: { model: anchorLogistic, stan: "bench/stan/logistic.stan", data: () => logisticData(300, 4, 300) },
  logistic_n5000: { model: anchorLogistic, stan: "bench/stan/logistic.stan", data: () => logisticData(5000, 4, 5000) },
  ordered_logistic: { model: orderedLogisticModel, stan: "bench/stan/ordered_logistic.stan", data: () => orderedData(500, 4, 5, 500) },
  weibull_survival: { model: weibullSurvivalModel, stan: "bench/stan/weibull_survival.stan", data: () => weibullData(300, 2, 301) },
  hier_n10k_j200: { model: anchorHier, stan: "bench/stan/hier.stan", data: () => hierData(10_000, 200) },
};

/** The case's data file in `dir` (written on first use), its path and its values. */
export function caseDataFile(name: string, dir: string): { path: string; values: Record<string, unknown> } {
  const c = STAN_CASES[name];
  if (c === undefined) throw new Error(`unknown case '${name}'; the cases are ${Object.keys(STAN_CASES).join(", ")}`);
  const path = join(dir, `${name}.json`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, JSON.stringify(c.data(dir)));
  }
  return { path, values: JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown> };
}

/**
 * Simulation-based calibration (Talts et al., 2018). For each replication: draw parameters
 * from the prior (the distributions' own `sample`, seeded), simulate data from them, sample the
 * posterior with a short NUTS run, and take the rank of the true value among L thinned draws.
 * If prior, likelihood, transforms and sampler agree, each rank is uniform on {0, …, L}; a
 * chi-square test on binned ranks checks that, per parameter, at a Bonferroni-corrected level.
 *
 * Sizes: R = 500 replications (50 per bin; 200 were too few to see the subtler error below),
 * 1 chain of 150 warmup + 198 draws thinned by 2 to L = 99 (so the L + 1 = 100 rank values fill
 * 10 bins of 10 exactly). Runtime 30–60 s on 2 cores.
 *
 * What it catches (checked by breaking the code on purpose): dropping the log-Jacobian of the
 * positive transform fails tau (p ≈ 1e-316) and theta[1] (p ≈ 1e-16); always accepting the new
 * subtree's proposal at a top-level merge (instead of Stan's min(1, w_new/w_old)) fails tau
 * (p ≈ 8e-4, just under the Bonferroni threshold 1.4e-3). A leapfrog whose closing kick is 0.45ε
 * instead of 0.5ε is not detected at this size: SBC bounds gross errors, the posteriordb suite the
 * fine ones.
 */
import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import { constant, add, mul } from "@ppl/tensor";
import {
  compileModel, data, halfCauchy, halfNormal, model, modelDensity, normal, sample, philoxRng, type Model, type Rng,
} from "../src/index.ts";
import eightSchools from "../../../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const REPLICATIONS = 500;
const WARMUP = 150;
const DRAWS = 198;
const THIN = 2;
/** Draws kept: indices 1, 3, …, 197 (99 of them). */
const L = DRAWS / THIN;
const BINS = 10;
/** Family-wise false-alarm rate, split over every parameter tested in this file. */
const FAMILY_ALPHA = 0.01;

/** One simulated data set and the parameter values that made it, by constrained name. */
interface Simulation {
  readonly data: Record<string, unknown>;
  readonly truth: Readonly<Record<string, number>>;
}

/** Ranks (0…L) of the true values among L thinned posterior draws, per tested name. */
async function sbcRanks(
  m: Model,
  simulate: (rng: Rng) => Simulation,
  names: readonly string[],
  seed: number,
): Promise<Map<string, number[]>> {
  const ranks = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let r = 0; r < REPLICATIONS; r++) {
    const sim = simulate(philoxRng(seed + r));
    const compiled = compileModel(m, sim.data);
    const density = await modelDensity(compiled, { backend: "cpu" });
    const columns = names.map((n) => {
      const k = compiled.constrainedNames().indexOf(n);
      if (k < 0) throw new Error(`${n} is not reported by ${m.name}`);
      return k;
    });
    const run = sample(density, { chains: 1, warmup: WARMUP, draws: DRAWS, seed: seed + r });
    const counts = new Array<number>(names.length).fill(0);
    for (let i = 1; i < DRAWS; i += THIN) {
      const values = density.generated(run.draws[0]!.subarray(i * run.dim, (i + 1) * run.dim));
      names.forEach((n, j) => {
        if (values[columns[j]!]! < sim.truth[n]!) counts[j]!++;
      });
    }
    names.forEach((n, j) => ranks.get(n)!.push(counts[j]!));
  }
  return ranks;
}

/** Pearson's chi-square statistic of ranks 0…L against uniform, in BINS equal bins, and its p-value. */
function uniformityTest(ranks: readonly number[]): { chi2: number; p: number; counts: number[] } {
  const counts = new Array<number>(BINS).fill(0);
  for (const r of ranks) counts[Math.floor((r * BINS) / (L + 1))]!++;
  const expected = ranks.length / BINS;
  const chi2 = counts.reduce((s, c) => s + (c - expected) ** 2 / expected, 0);
  return { chi2, p: chiSquareUpperTail(chi2, BINS - 1), counts };
}

/** P(X ≥ x) for X ~ chi-square(df): the regularized upper incomplete gamma Q(df/2, x/2). */
function chiSquareUpperTail(x: number, df: number): number {
  const a = df / 2;
  const z = x / 2;
  if (z <= 0) return 1;
  const logPrefix = a * Math.log(z) - z - logGamma(a);
  if (z < a + 1) {
    // Series for the lower part P(a, z).
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 500; n++) {
      term *= z / (a + n);
      sum += term;
      if (term < sum * 1e-15) break;
    }
    return 1 - Math.exp(logPrefix) * sum;
  }
  // Continued fraction for Q(a, z) (modified Lentz).
  let b = z + 1 - a;
  let c = 1 / 1e-300;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 500; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < 1e-300) d = 1e-300;
    c = b + an / c;
    if (Math.abs(c) < 1e-300) c = 1e-300;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-15) break;
  }
  return Math.exp(logPrefix) * h;
}

/** log Γ(x) for x > 0 (Lanczos, g = 7). */
function logGamma(x: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const xm = x - 1;
  let a = g[0]!;
  const t = xm + 7.5;
  for (let i = 1; i < 9; i++) a += g[i]! / (xm + i);
  return 0.5 * Math.log(2 * Math.PI) + (xm + 0.5) * Math.log(t) - t + Math.log(a);
}

const first = (v: { data: Float64Array }): number => v.data[0]!;

// ---------- eight schools, non-centred (the posteriordb model, with its sigma) ----------

const SCHOOLS = JSON.parse(
  readFileSync(new URL("../../../../shared/posteriordb/eight_schools-eight_schools_noncentered/data.json", import.meta.url), "utf8"),
) as { J: number; sigma: number[] };

function simulateSchools(rng: Rng): Simulation {
  const J = SCHOOLS.J;
  const mu = first(normal(0, 5).sample(rng));
  const tau = first(halfCauchy(0, 5).sample(rng));
  const thetaTrans = normal(0, 1).sample(rng, [J]).data;
  const theta = Array.from(thetaTrans, (t) => mu + tau * t);
  const y = normal(constant(theta, [J]), constant(SCHOOLS.sigma, [J])).sample(rng).data;
  return {
    data: { J, y: Array.from(y), sigma: SCHOOLS.sigma },
    truth: { mu, tau, "theta_trans[1]": thetaTrans[0]!, "theta[1]": theta[0]! },
  };
}

// ---------- a small linear regression: y ~ normal(alpha + beta·x, sigma), N = 20 ----------

const N = 20;
const X = Array.from(normal(0, 1).sample(philoxRng(7), [N]).data);

const regression = model({
  name: "sbc_regression",
  data: { N: data.int({ lower: 0 }), x: data.vector("N"), y: data.vector("N") },
  build(m, d) {
    const alpha = m.param("alpha", normal(0, 2));
    const beta = m.param("beta", normal(0, 1));
    const sigma = m.param("sigma", halfNormal(0, 1));
    m.observe(d.y, normal(add(alpha, mul(beta, d.x)), sigma));
  },
});

function simulateRegression(rng: Rng): Simulation {
  const alpha = first(normal(0, 2).sample(rng));
  const beta = first(normal(0, 1).sample(rng));
  const sigma = first(halfNormal(0, 1).sample(rng));
  const y = normal(constant(X.map((x) => alpha + beta * x), [N]), sigma).sample(rng).data;
  return { data: { N, x: X, y: Array.from(y) }, truth: { alpha, beta, sigma } };
}

// ---------- the tests ----------

const CASES = [
  { name: "eight schools (non-centred)", model: eightSchools, simulate: simulateSchools, params: ["mu", "tau", "theta_trans[1]", "theta[1]"], seed: 10_000 },
  { name: "linear regression (N = 20)", model: regression, simulate: simulateRegression, params: ["alpha", "beta", "sigma"], seed: 20_000 },
] as const;
const ALPHA = FAMILY_ALPHA / CASES.reduce((s, c) => s + c.params.length, 0);

describe("simulation-based calibration: ranks of the true parameters are uniform", () => {
  test("the chi-square tail is right (df 9: the 5% point is 16.919)", () => {
    expect(chiSquareUpperTail(16.919, 9)).toBeCloseTo(0.05, 4);
    expect(chiSquareUpperTail(2.088, 9)).toBeCloseTo(0.99, 4);
  });

  for (const c of CASES) {
    test(`${c.name}: ${c.params.join(", ")}`, { timeout: 300_000 }, async () => {
      const ranks = await sbcRanks(c.model as Model, c.simulate, c.params, c.seed);
      const failures: string[] = [];
      for (const p of c.params) {
        const { chi2, p: pValue, counts } = uniformityTest(ranks.get(p)!);
        const line = `${p}: chi2 ${chi2.toFixed(2)}, p ${pValue.toExponential(2)}, bins [${counts.join(" ")}]`;
        if (process.env.PPL_SBC_VERBOSE) console.log(`${c.name} ${line}`);
        if (!(pValue >= ALPHA)) failures.push(line);
      }
      expect(failures, `ranks not uniform at p < ${ALPHA.toExponential(2)}`).toEqual([]);
    });
  }
});

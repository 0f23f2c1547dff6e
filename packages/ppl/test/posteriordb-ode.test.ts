/**
 * The two ODE posteriors of posteriordb (../shared/posteriordb-ode), solved by odeRK45.
 *
 * CI checks each model's log density and gradient at reference draws against an independent
 * computation in plain JavaScript (a fixed-step RK4 of 20,000 steps over the span, exact to
 * ~1e-12, and the log density written out by hand), and samples one_comp_mm_elim_abs under
 * the pass rule and against the reference's quantiles (about 20 s each). Lotka–Volterra takes about five minutes on one core
 * (adapt_delta 0.99 gives trees of depth 6–7): `PPL_LONG=1 npx vitest run packages/ppl/test/posteriordb-ode.test.ts`.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { compileModel, modelDensity, sample } from "../src/index.ts";
import { DEFAULT_SEED, failureLines, folderOf, loadModel, loadPosterior, posteriorNames, posteriorSettings, runPosterior } from "../src/posteriordb/index.ts";

const LV = "hudson_lynx_hare-lotka_volterra";
const PK = "one_comp_mm_elim_abs-one_comp_mm_elim_abs";

type Rhs = (t: number, y: number[]) => number[];

// Classical RK4 with a fixed step: the states at the times ts (each a multiple of the step from t0).
function rk4(f: Rhs, y0: number[], t0: number, ts: readonly number[], h: number): number[][] {
  const out: number[][] = [];
  let t = t0, y = [...y0];
  for (const target of ts) {
    const n = Math.round((target - t) / h);
    const step = (target - t) / n;
    for (let i = 0; i < n; i++) {
      const k1 = f(t, y);
      const k2 = f(t + step / 2, y.map((v, j) => v + (step / 2) * k1[j]!));
      const k3 = f(t + step / 2, y.map((v, j) => v + (step / 2) * k2[j]!));
      const k4 = f(t + step, y.map((v, j) => v + step * k3[j]!));
      y = y.map((v, j) => v + (step / 6) * (k1[j]! + 2 * k2[j]! + 2 * k3[j]! + k4[j]!));
      t += step;
    }
    t = target;
    out.push([...y]);
  }
  return out;
}

const lognormal = (x: number, mu: number, s: number) => -Math.log(x) - Math.log(s) - 0.5 * ((Math.log(x) - mu) / s) ** 2;
const normal = (x: number, mu: number, s: number) => -Math.log(s) - 0.5 * ((x - mu) / s) ** 2;
const halfCauchy = (x: number) => -Math.log1p(x * x);

interface LvData { N: number; ts: number[]; y_init: number[]; y: number[][] }
interface PkData { t0: number; D: number; V: number; N_t: number; times: number[]; C_hat: number[] }

// Log posterior density over the constrained values, up to a constant, in the models' parameter order.
const JS_DENSITY: Record<string, (x: readonly number[], d: unknown) => number> = {
  [LV]: (x, raw) => {
    const d = raw as LvData;
    const [a, b, g, dl, u0, v0, s1, s2] = x as [number, number, number, number, number, number, number, number];
    const z = rk4((_t, [u, v]) => [(a - b * v!) * u!, (-g + dl * u!) * v!], [u0, v0], 0, d.ts, 1e-3);
    let lp = normal(a, 1, 0.5) + normal(b, 0.05, 0.05) + normal(g, 1, 0.5) + normal(dl, 0.05, 0.05);
    lp += lognormal(s1, -1, 1) + lognormal(s2, -1, 1) + lognormal(u0, Math.log(10), 1) + lognormal(v0, Math.log(10), 1);
    lp += lognormal(d.y_init[0]!, Math.log(u0), s1) + lognormal(d.y_init[1]!, Math.log(v0), s2);
    d.y.forEach((row, n) => (lp += lognormal(row[0]!, Math.log(z[n]![0]!), s1) + lognormal(row[1]!, Math.log(z[n]![1]!), s2)));
    return lp;
  },
  [PK]: (x, raw) => {
    const d = raw as PkData;
    const [ka, Km, Vm, sigma] = x as [number, number, number, number];
    // The dose term is smooth through t = 0 here: the model's 0 at the single point t = 0 changes no solution.
    const C = rk4((t, [c]) => [Math.exp(-ka * t) * d.D * ka / d.V - (Vm / d.V) * c! / (Km + c!)], [0], d.t0, d.times, 5e-4);
    let lp = halfCauchy(ka) + halfCauchy(Km) + halfCauchy(Vm) + halfCauchy(sigma);
    d.C_hat.forEach((c, n) => (lp += lognormal(c, Math.log(C[n]![0]!), sigma)));
    return lp;
  },
};

// Every parameter is positive (q = log x): log|dx/dq| = Σ q.
const jsDensityOfQ = (name: string, q: readonly number[], d: unknown) => JS_DENSITY[name]!(q.map(Math.exp), d) + q.reduce((s, v) => s + v, 0);

function referenceDraws(name: string, count: number): number[][] {
  const chains = JSON.parse(readFileSync(join(folderOf(name), name, "reference_draws.json"), "utf8")) as Record<string, number[]>[];
  const names = Object.keys(chains[0]!);
  return Array.from({ length: count }, (_, k) => names.map((p) => chains[k % chains.length]![p]![37 * k]!));
}

describe("ODE posteriors: log density and gradient at reference draws against an independent computation", () => {
  test("the suite reads the ODE folder too", () => {
    expect(posteriorNames()).toEqual(expect.arrayContaining([LV, PK, "eight_schools-eight_schools_noncentered"]));
  });

  for (const name of [LV, PK]) {
    test(name, async () => {
      const posterior = loadPosterior(name);
      const compiled = compileModel(await loadModel(name), posterior.data);
      const density = await modelDensity(compiled, { backend: "cpu" });
      const draws = referenceDraws(name, 4);
      expect(compiled.constrainedNames()).toEqual(Object.keys(posterior.reference.params));
      const lps: number[] = [], jsLps: number[] = [];
      for (const x of draws) {
        const q = x.map(Math.log);
        const lp = new Float64Array(1), grad = new Float64Array(compiled.dim);
        density.logpGrad(Float64Array.from(q), lp, grad);
        expect(Array.from(density.generated(Float64Array.from(q)))).toEqual(x.map((v) => expect.closeTo(v, 9)));
        lps.push(lp[0]!);
        jsLps.push(jsDensityOfQ(name, q, posterior.data));
        // Central differences of the smooth JS density (its RK4 is exact to ~1e-12, so a step of 1e-5 is
        // good to ~1e-7). The models' sensitivities are not in RK45's error test: at their tolerances
        // they are good to a few parts in a thousand, which costs HMC nothing but acceptance rate.
        q.forEach((_, i) => {
          const h = 1e-5;
          const up = [...q], down = [...q];
          up[i]! += h;
          down[i]! -= h;
          const want = (jsDensityOfQ(name, up, posterior.data) - jsDensityOfQ(name, down, posterior.data)) / (2 * h);
          expect(Math.abs(grad[i]! - want), `d/dq[${i}] at draw ${x.join(", ")}`).toBeLessThan(1e-2 * (1 + Math.abs(want)));
        });
      }
      // Densities agree up to the normalizing constants, which cancel in differences between draws.
      lps.forEach((lp, k) => expect(Math.abs(lp - lps[0]! - (jsLps[k]! - jsLps[0]!))).toBeLessThan(1e-3));
    });
  }
});

/**
 * one_comp's K_m and V_m have no finite variance. Where K_m ≫ C (C ≈ 10–14 here) the elimination
 * (V_m/V)·C/(K_m + C) depends on V_m/K_m = r alone, so along the ridge the density in (K_m, r) is
 * the half-Cauchy priors' 1/K_m² · 1/(r·K_m)² times the Jacobian K_m: K_m's marginal falls as
 * K_m⁻³ (the reference draws' Hill estimate of the tail index is ≈ 2 for the top 100), and its
 * second moment diverges like log K_m. The sd of a finite run then grows with the run's length,
 * and the reference's (10 chains × 10,000 iterations) is not what 4 × 1000 iterations estimate:
 * Stan's own reference chains, cut into runs of 4 × 1000 iterations, meet the 0.8 bound less than
 * half the time and fall to 0.63 or below a fifth of the time (the test below), while every mean
 * and quantile passes. Our 4 × 1000 draws give K_m ratios of 0.63 at the suite's seed and 0.55,
 * 0.92 and 0.73 at seeds 4–6; 4 × 10,000 draws give 2.56, 2.12 and 0.77 at seeds 1–3 (V_m alike):
 * no run length makes the bound a test of the sampler. For these two the test asks the means to
 * pass and the sd ratio to stay above 0.55, and the spread is tested where it is finite: the sd of
 * log K_m and log V_m meets the rule's bound against the reference draws' (1.02 and 0.95 at the
 * suite's seed); everything else must pass the rule.
 */
const HEAVY_TAILED: Readonly<Record<string, readonly string[]>> = { [PK]: ["K_m", "V_m"] };

function passes(name: string, seed?: number): () => Promise<void> {
  return async () => {
    const r = await runPosterior(name, seed !== undefined ? { seed } : {});
    console.log(`${name} on the CPU${seed !== undefined ? ` at seed ${seed}` : ""}: worst |z| ${r.worstZ.value.toFixed(2)} (${r.worstZ.name}), sd ratios ${r.checks.map((c) => `${c.name} ${c.sdRatio.toFixed(2)}`).join(", ")}, ${r.divergences} divergences, ${r.wallSeconds.toFixed(0)} s`);
    expect(r.missing).toEqual([]);
    const heavy = HEAVY_TAILED[name] ?? [];
    const failures = r.checks.filter((c) => !c.pass && !(heavy.includes(c.name) && Math.abs(c.z) <= 4 && c.sdRatio >= 0.55));
    expect(failureLines({ ...r, checks: failures }), `${name}: worst |z| ${r.worstZ.value.toFixed(2)} (${r.worstZ.name})`).toEqual([]);
    for (const c of r.checks) if (heavy.includes(c.name)) expect(Math.abs(c.z), `${c.name}: the mean passes`).toBeLessThanOrEqual(4);
  };
}

describe("why one_comp's K_m and V_m have a relaxed sd bound", () => {
  test("Stan's own reference chains, cut into runs of 4 × 1000 iterations, often miss the sd bound", () => {
    const ref = loadPosterior(PK).reference.params;
    const chains = JSON.parse(readFileSync(join(folderOf(PK), PK, "reference_draws.json"), "utf8")) as Record<string, number[]>[];
    // The reference keeps every 10th of 10,000 iterations a chain: 100 kept draws are 1000 iterations.
    let seed = 7;
    const next = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) % n);
    for (const name of ["K_m", "V_m"]) {
      const ratios: number[] = [];
      for (let run = 0; run < 2000; run++) {
        const picked = new Set<number>();
        while (picked.size < 4) picked.add(next(chains.length));
        const x = [...picked].flatMap((c) => {
          const start = next(1000 - 100 + 1);
          return chains[c]![name]!.slice(start, start + 100);
        });
        const m = x.reduce((s, v) => s + v, 0) / x.length;
        ratios.push(Math.sqrt(x.reduce((s, v) => s + (v - m) ** 2, 0) / (x.length - 1)) / ref[name]!.sd);
      }
      const share = (f: (r: number) => boolean) => ratios.filter(f).length / ratios.length;
      expect(share((r) => r >= 0.8), `${name}: runs meeting the bound`).toBeLessThan(0.5);
      expect(share((r) => r <= 0.63), `${name}: runs at or below our ratio`).toBeGreaterThan(0.15);
    }
  });
});

describe("ODE posteriors under the pass rule (CPU backend, fixed seed)", () => {
  test(PK, { timeout: 600_000 }, passes(PK));

  test(`${PK}: the 5%, 50% and 95% quantiles of every parameter match the reference's, and the sd of its log meets the rule's bound (the sd falls short in the far tail only)`, { timeout: 600_000 }, async () => {
    const posterior = loadPosterior(PK);
    const compiled = compileModel(await loadModel(PK), posterior.data);
    const density = await modelDensity(compiled, { backend: "cpu" });
    const r = sample(density, { ...posteriorSettings(PK, posterior.reference), seed: DEFAULT_SEED });
    const names = compiled.constrainedNames();
    const refDraws = JSON.parse(readFileSync(join(folderOf(PK), PK, "reference_draws.json"), "utf8")) as Record<string, number[]>[];
    const columns = names.map(() => [] as number[]);
    for (const chain of r.draws) {
      for (let i = 0; i < r.drawsDone; i++) density.generated(chain.subarray(i * r.dim, (i + 1) * r.dim)).forEach((v, k) => columns[k]!.push(v));
    }
    names.forEach((name, k) => {
      const x = columns[k]!.sort((a, b) => a - b);
      const ref = posterior.reference.params[name]!;
      // 4000 autocorrelated draws: the 5% quantile of K_m (0.086, in a steep tail) is the least certain.
      for (const [f, want] of [[0.05, ref.q05], [0.5, ref.q50], [0.95, ref.q95]] as const) {
        expect(Math.abs(x[Math.round(f * (x.length - 1))]! / want - 1), `${name} q${f * 100}`).toBeLessThan(0.2);
      }
      // Every parameter is positive and its log has a finite variance (K_m's marginal falls as
      // K_m⁻³, so log K_m's falls exponentially): the sd of the logs is the spread a finite run can
      // estimate, and it must meet the pass rule's sd bound against the reference draws' own.
      const sdOfLog = (v: readonly number[]) => {
        const l = v.map(Math.log);
        const m = l.reduce((s, u) => s + u, 0) / l.length;
        return Math.sqrt(l.reduce((s, u) => s + (u - m) ** 2, 0) / (l.length - 1));
      };
      const ratio = sdOfLog(x) / sdOfLog(refDraws.flatMap((c) => c[name]!));
      console.log(`${PK} on the CPU: sd of log ${name} ${ratio.toFixed(3)} of the reference draws'`);
      expect(ratio, `${name}: sd of log ${name} against the reference draws'`).toBeGreaterThanOrEqual(0.8);
      expect(ratio, `${name}: sd of log ${name} against the reference draws'`).toBeLessThanOrEqual(1.25);
    });
  });
});

describe.runIf(process.env.PPL_LONG)("ODE posteriors that take minutes (PPL_LONG=1)", () => {
  test(LV, { timeout: 3_600_000 }, passes(LV));
});

/**
 * Seeds 1, 2 and 3 draw random initial points where Lotka–Volterra's prey falls far below the
 * solver's absolute tolerance (seed 1's third and fourth chains): before the solver held such
 * states to its relative tolerance, seed 1 ended with step sizes 0.113, 0.119, 4.0e-5 and 1.8e-6
 * and theta[2]'s sd 536 times the reference's. Lotka–Volterra takes about five minutes a seed on
 * one core, one_comp under a minute.
 */
describe.runIf(process.env.PPL_LONG)("ODE posteriors at seeds 1, 2 and 3 (PPL_LONG=1)", () => {
  for (const name of [LV, PK]) {
    for (const seed of [1, 2, 3]) test(`${name}, seed ${seed}`, { timeout: 3_600_000 }, passes(name, seed));
  }
});

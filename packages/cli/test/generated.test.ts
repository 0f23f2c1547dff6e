// Generated quantities, predictive and prior draws through the command, as a user runs them:
// `ppl sample --predictive` (the posterior predictive check of eight schools against draws made
// independently from the written parameters), `ppl generate` over a fit (the run's own generated
// columns again), `ppl sample --prior` (moments against the priors), the same random streams on
// the CPU and on lavapipe, and the errors. Tolerances are 4 Monte Carlo standard errors; seeds fixed.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, philoxRng, SAMPLER_COLUMNS, type StanCsv } from "@ppl/ppl";
import { usableDevices } from "@ppl/vulkan";
import { hasStackTrace, PPL_INDEX, readCsv, ROOT, runCli, tempDir } from "./helpers.ts";

const EIGHT = JSON.parse(readFileSync(join(ROOT, "examples/eight_schools.json"), "utf8")) as { J: number; y: number[]; sigma: number[] };
const J = EIGHT.J;
const DATA = "examples/eight_schools.json";
// The tensor package by name, as a user's model imports it (the CLI resolves it to its own copy).
const TENSOR_INDEX = "@ppl/tensor";
const school = (name: string) => Array.from({ length: J }, (_, i) => `${name}.${i + 1}`);
const PARAMS = ["mu", "tau", ...school("theta_trans"), ...school("theta")];

const tmp = tempDir("ppl-gq-");
// Eight schools with two generated quantities: a new school's effect (a distribution's draw) and a
// standard normal from the quantity's own stream alone (it reads no parameter).
const MODEL = join(tmp, "eight_gq.ts");
writeFileSync(
  MODEL,
  `import { add, mul } from ${JSON.stringify(TENSOR_INDEX)};\n` +
    `import { data, halfCauchy, model, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
    `export default model({\n  name: "eight_gq",\n` +
    `  data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },\n` +
    `  build(m, d) {\n` +
    `    const mu = m.param("mu", normal(0, 5));\n` +
    `    const tau = m.param("tau", halfCauchy(0, 5));\n` +
    `    const thetaTrans = m.param("theta_trans", normal(0, 1), { shape: [d.J] });\n` +
    `    const theta = m.deterministic("theta", add(mu, mul(tau, thetaTrans)));\n` +
    `    m.observe(d.y, normal(theta, d.sigma));\n` +
    `    m.generated("theta_new", normal(mu, tau));\n` +
    `    m.generated("z", (draw, rng) => rng.normal());\n` +
    `  },\n});\n`,
);

const chainsOf = (dir: string, n: number): StanCsv[] => Array.from({ length: n }, (_, c) => readCsv(join(dir, `chain-${c + 1}.csv`)));
/** A column of every chain, back to back. */
const pooled = (files: readonly StanCsv[], name: string): Float64Array => {
  const parts = files.map((f) => f.draws[f.columns.indexOf(name)]!);
  if (parts.some((p) => p === undefined)) throw new Error(`no column ${name}`);
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let k = 0;
  for (const p of parts) out.set(p, (k += p.length) - p.length);
  return out;
};
const meanOf = (x: ArrayLike<number>) => Array.from(x).reduce((a, b) => a + b, 0) / x.length;
const varOf = (x: ArrayLike<number>) => {
  const m = meanOf(x);
  return Array.from(x).reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1);
};
/** The standardized residuals (y_rep[j] − theta[j]) / sigma[j] of school j: the predictive stream's own normals. */
const residuals = (files: readonly StanCsv[], j: number) => {
  const rep = pooled(files, `y_rep.${j + 1}`);
  const theta = pooled(files, `theta.${j + 1}`);
  return rep.map((r, s) => (r - theta[s]!) / EIGHT.sigma[j]!);
};

/**
 * The posterior predictive check: per school, the mean and sd of the written y_rep against those of
 * draws theta + sigma·z* made here from the written theta with an independent generator. The two
 * share theta, so the difference of means is sigma·(mean z − mean z*), of sd sigma·√(2/n), and the
 * difference of variances 2σ·cov(θ, z − z*) + σ²(s²(z) − s²(z*)), of sd √((8σ²·var θ + 4σ⁴)/n) —
 * whatever the autocorrelation of theta, since z and z* are independent of it and of each other.
 */
function expectPredictiveCheck(files: readonly StanCsv[], seed: number): void {
  const rng = philoxRng(seed);
  for (let j = 0; j < J; j++) {
    const rep = pooled(files, `y_rep.${j + 1}`);
    const theta = pooled(files, `theta.${j + 1}`);
    const sigma = EIGHT.sigma[j]!;
    const own = theta.map((t) => t + sigma * rng.normal());
    const n = rep.length;
    expect(Math.abs(meanOf(rep) - meanOf(own)) / (sigma * Math.sqrt(2 / n)), `school ${j + 1} mean`).toBeLessThan(4);
    const seVar = Math.sqrt((8 * sigma ** 2 * varOf(theta) + 4 * sigma ** 4) / n);
    expect(Math.abs(varOf(rep) - varOf(own)) / seVar, `school ${j + 1} variance`).toBeLessThan(4);
  }
}

let cpuFit: string;
let cpuRun: Awaited<ReturnType<typeof runCli>>;

beforeAll(async () => {
  cpuFit = join(tmp, "cpu-fit");
  cpuRun = await runCli([
    "sample", MODEL, "--data", DATA, "--backend", "cpu", "--chains", "4", "--warmup", "500", "--draws", "1000", "--seed", "2024",
    "--predictive", "--log-lik", "--quiet", "--output", cpuFit,
  ]);
});

describe("ppl sample --predictive", () => {
  it("writes the generated quantities, then y_rep.1 … y_rep.8, then log_lik, after the parameters", () => {
    expect(cpuRun.code, cpuRun.stderr).toBe(0);
    for (const f of chainsOf(cpuFit, 4)) {
      expect(f.columns).toEqual([...SAMPLER_COLUMNS, ...PARAMS, "theta_new", "z", ...school("y_rep"), ...school("log_lik")]);
      expect(f.draws[0]!.length).toBe(1000);
    }
    // The printed summary covers the generated quantities like any other; the per-observation
    // y_rep and log_lik only when --variables asks for them.
    expect(cpuRun.stdout).toMatch(/^theta_new /m);
    expect(cpuRun.stdout).not.toMatch(/^y_rep\[8\] /m);
    expect(cpuRun.stdout).toMatch(/^16 per-observation rows not shown \(y_rep: 8, log_lik: 8\)/m);
  });

  it("eight schools' posterior predictive check: y_rep's mean and sd per school agree with draws made independently from the written theta", () => {
    expectPredictiveCheck(chainsOf(cpuFit, 4), 99);
  });

  it("the generated quantities have their distributions: z ~ normal(0, 1), theta_new − mu ~ tau·normal(0, 1)", () => {
    const files = chainsOf(cpuFit, 4);
    const z = pooled(files, "z");
    expect(Math.abs(meanOf(z)) * Math.sqrt(z.length)).toBeLessThan(4);
    expect(Math.abs(varOf(z) - 1) / Math.sqrt(2 / z.length)).toBeLessThan(4);
    const mu = pooled(files, "mu");
    const tau = pooled(files, "tau");
    const u = pooled(files, "theta_new").map((t, s) => (t - mu[s]!) / tau[s]!);
    expect(Math.abs(meanOf(u)) * Math.sqrt(u.length)).toBeLessThan(4);
    expect(Math.abs(varOf(u) - 1) / Math.sqrt(2 / u.length)).toBeLessThan(4);
  });
});

describe("ppl generate", () => {
  it("over a fit writes the fit's own generated, predictive and log_lik columns again (the fit's seed by default)", async () => {
    const out = join(tmp, "gen");
    const r = await runCli(["generate", MODEL, "--data", DATA, "--fit", cpuFit, "--log-lik", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^wrote chain-1.csv, chain-2.csv, chain-3.csv, chain-4.csv and summary.json to ${out} \\(1000 draws per chain of ${cpuFit}, seed 2024\\)$`, "m"));
    const fit = chainsOf(cpuFit, 4);
    const gen = chainsOf(out, 4);
    gen.forEach((g, c) => {
      expect(g.columns).toEqual(fit[c]!.columns);
      expect(g.draws).toEqual(fit[c]!.draws);
      expect(g.config["method"]).toBe("generate_quantities");
      expect(g.config["fitted_params"]).toBe(join(cpuFit, `chain-${c + 1}.csv`));
    });
  });

  it("with another --seed draws other generated values for the same parameters", async () => {
    const out = join(tmp, "gen-seed");
    const r = await runCli(["generate", MODEL, "--data", DATA, "--fit", cpuFit, "--seed", "7", "--quiet", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    const fit = chainsOf(cpuFit, 1)[0]!;
    const gen = chainsOf(out, 1)[0]!;
    expect(gen.columns).toEqual(fit.columns.filter((c) => !c.startsWith("log_lik")));
    expect(gen.draws[gen.columns.indexOf("theta.3")]).toEqual(fit.draws[fit.columns.indexOf("theta.3")]);
    expect(gen.draws[gen.columns.indexOf("z")]).not.toEqual(fit.draws[fit.columns.indexOf("z")]);
    expect(gen.config["seed"]).toBe("7");
  });

  it("a fit of another model, or --output in the fit's own directory, is a usage error", async () => {
    const other = await runCli(["generate", "examples/linear_regression.ts", "--data", "examples/linear_regression.json", "--fit", cpuFit, "--output", join(tmp, "x")]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/^ppl: the fit '.*cpu-fit' has no columns? .* of model '[a-z_]+'; give --fit the output directory of a run of this model\n$/);
    const same = await runCli(["generate", MODEL, "--data", DATA, "--fit", cpuFit, "--output", cpuFit]);
    expect(same.code).toBe(2);
    expect(same.stderr).toMatch(/^ppl: --output '.*cpu-fit' holds the fit's own files, which the command would overwrite; choose another directory with --output\n$/);
  });
});

describe("ppl sample --prior", () => {
  const N = 4000;
  let prior: string;
  let run: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    prior = join(tmp, "prior");
    run = await runCli(["sample", MODEL, "--data", DATA, "--prior", "--chains", "2", "--draws", String(N / 2), "--seed", "31", "--output", prior]);
  });

  it("writes fixed_param Stan CSV: lp__ and accept_stat__ at 0, the parameters, deterministics, generated quantities and y_rep", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^drawing 2000 exact prior draws per chain on the host \(no MCMC/m);
    const files = chainsOf(prior, 2);
    for (const f of files) {
      expect(f.columns).toEqual(["lp__", "accept_stat__", ...PARAMS, "theta_new", "z", ...school("y_rep")]);
      expect(f.config["algorithm"]).toBe("fixed_param");
      expect(f.draws[0]!.every((v) => v === 0)).toBe(true);
      expect(f.draws[1]!.every((v) => v === 0)).toBe(true);
    }
  });

  it("the draws' moments match the priors: mu ~ normal(0, 5), tau ~ halfCauchy(0, 5), theta_trans ~ normal(0, 1), y_rep − theta ~ sigma·normal(0, 1)", () => {
    const files = chainsOf(prior, 2);
    const mu = pooled(files, "mu");
    expect(Math.abs(meanOf(mu)) / (5 / Math.sqrt(N))).toBeLessThan(4);
    expect(Math.abs(varOf(mu) - 25) / (25 * Math.sqrt(2 / N))).toBeLessThan(4);
    // halfCauchy(0, 5) has median 5: the fraction below it is binomial(N, 1/2).
    const tau = pooled(files, "tau");
    expect(tau.every((t) => t > 0)).toBe(true);
    expect(Math.abs(tau.filter((t) => t <= 5).length / N - 0.5) / Math.sqrt(0.25 / N)).toBeLessThan(4);
    for (const j of [0, 5]) {
      const tt = pooled(files, `theta_trans.${j + 1}`);
      expect(Math.abs(meanOf(tt)) * Math.sqrt(N)).toBeLessThan(4);
      expect(Math.abs(varOf(tt) - 1) / Math.sqrt(2 / N)).toBeLessThan(4);
      const e = residuals(files, j);
      expect(Math.abs(meanOf(e)) * Math.sqrt(N)).toBeLessThan(4);
      expect(Math.abs(varOf(e) - 1) / Math.sqrt(2 / N)).toBeLessThan(4);
      // y_rep is symmetric about 0 under the prior (theta is): P(y_rep ≤ 0) = 1/2.
      const rep = pooled(files, `y_rep.${j + 1}`);
      expect(Math.abs(rep.filter((v) => v <= 0).length / N - 0.5) / Math.sqrt(0.25 / N)).toBeLessThan(4);
    }
  });

  it("the same seed gives the same files with --backend cpu and --backend vulkan (the prior is drawn on the host)", async () => {
    const [a, b] = await Promise.all(
      ["cpu", "vulkan"].map((backend) =>
        runCli(["sample", MODEL, "--data", DATA, "--prior", "--backend", backend, "--chains", "2", "--draws", "50", "--seed", "8", "--quiet", "--output", join(tmp, `prior-${backend}`)]),
      ),
    );
    expect(a!.code, a!.stderr).toBe(0);
    expect(b!.code, b!.stderr).toBe(0);
    expect(chainsOf(join(tmp, "prior-vulkan"), 2).map((f) => f.draws)).toEqual(chainsOf(join(tmp, "prior-cpu"), 2).map((f) => f.draws));
  });

  it("ppl generate over a prior fit gives its generated columns again", async () => {
    const out = join(tmp, "prior-gen");
    const r = await runCli(["generate", MODEL, "--data", DATA, "--fit", prior, "--quiet", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(chainsOf(out, 2).map((f) => f.draws)).toEqual(chainsOf(prior, 2).map((f) => f.draws));
  });

  it("a model whose prior has no exact draw is a model error naming the term, in one line", async () => {
    const p = join(tmp, "factor.ts");
    writeFileSync(
      p,
      `import { mul, square } from ${JSON.stringify(TENSOR_INDEX)};\nimport { model, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
        `export default model({ name: "soft", data: {}, build(m) { const x = m.param("x", normal(0, 1)); m.factor(mul(-0.5, square(x))); } });\n`,
    );
    const r = await runCli(["sample", p, "--prior", "--output", join(tmp, "factor-out")]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe(
      "ppl: model 'soft': its prior cannot be drawn directly: the term m.factor(mul[]) is a log density with no sampler. --prior makes exact draws only; to sample this prior with NUTS, run ppl sample on a copy of the model without its observe terms\n",
    );
  });
});

describe("errors in generated quantities", () => {
  it("a quantity that throws is a model error naming it and the draw, with no stack trace", async () => {
    const p = join(tmp, "throws.ts");
    writeFileSync(
      p,
      `import { model, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
        `export default model({ name: "bad", data: {}, build(m) { m.param("x", normal(0, 1)); m.generated("g", (draw) => { if (draw.draw === 3) throw new Error("no value here"); return 1; }); } });\n`,
    );
    const r = await runCli(["sample", p, "--backend", "cpu", "--chains", "1", "--warmup", "10", "--draws", "10", "--quiet", "--output", join(tmp, "throws-out")]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe("ppl: model 'bad': generated quantity 'g' (chain 1, draw 4): no value here\n");
    expect(hasStackTrace(r.stderr)).toBe(false);
  });

  it("a model quantity named like its predictive draws is a model error with --predictive", async () => {
    const p = join(tmp, "clash.ts");
    writeFileSync(
      p,
      `import { data, model, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
        `export default model({ name: "clash", data: { N: data.int(), y: data.vector("N") }, build(m, d) { const mu = m.param("mu", normal(0, 1)); m.observe(d.y, normal(mu, 1)); m.generated("y_rep", normal(mu, 1)); } });\n`,
    );
    const data = join(tmp, "clash.json");
    writeFileSync(data, JSON.stringify({ N: 2, y: [1, 2] }));
    const r = await runCli(["sample", p, "--data", data, "--backend", "cpu", "--predictive", "--output", join(tmp, "clash-out")]);
    expect(r.code).toBe(3);
    expect(r.stderr).toBe("ppl: model 'clash' declares 'y_rep', the name of the predictive draws of one of its observe terms; rename that parameter, deterministic or generated quantity\n");
  });
});

describe.runIf(usableDevices().length > 0)("generated quantities on lavapipe (--backend vulkan)", () => {
  let gpuFit: string;
  let gpu: Awaited<ReturnType<typeof runCli>>;
  beforeAll(async () => {
    gpuFit = join(tmp, "gpu-fit");
    gpu = await runCli([
      "sample", MODEL, "--data", DATA, "--backend", "vulkan", "--chains", "4", "--warmup", "300", "--draws", "500", "--seed", "2024",
      "--predictive", "--quiet", "--output", gpuFit,
    ]);
  });

  it("the same seed gives the same generated random numbers as on the CPU: z identical, (y_rep − theta)/sigma equal to rounding", () => {
    expect(gpu.code, gpu.stderr).toBe(0);
    const gpuFiles = chainsOf(gpuFit, 4);
    const cpuFiles = chainsOf(cpuFit, 4).map((f) => ({ ...f, draws: f.draws.map((d) => d.subarray(0, 500)) }));
    gpuFiles.forEach((g, c) => {
      expect(g.config["backend"]).toBe("vulkan");
      expect(g.draws[g.columns.indexOf("z")]).toEqual(cpuFiles[c]!.draws[cpuFiles[c]!.columns.indexOf("z")]);
    });
    for (let j = 0; j < J; j++) {
      const a = residuals(gpuFiles, j);
      const b = residuals(cpuFiles, j);
      a.forEach((v, s) => expect(v).toBeCloseTo(b[s]!, 9));
    }
  });

  it("eight schools' posterior predictive check holds on the GPU's draws too", () => {
    expectPredictiveCheck(chainsOf(gpuFit, 4), 100);
  });

  it("ppl generate over the GPU's fit writes its generated columns again", async () => {
    const out = join(tmp, "gpu-gen");
    const r = await runCli(["generate", MODEL, "--data", DATA, "--fit", gpuFit, "--quiet", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(chainsOf(out, 4).map((f) => f.draws)).toEqual(chainsOf(gpuFit, 4).map((f) => f.draws));
    // The summary reads the generated files like any run.
    expect(Object.keys(collectChains(chainsOf(out, 4)).parameters)).toContain("y_rep[8]");
  });
});

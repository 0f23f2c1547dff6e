// `--variables` (-v) on sample, summary, report and export, by Stan's rules (a base name selects
// every element, theta[2] or theta.2 one element), through the command line; and the default
// view of `ppl sample` and `ppl report`, which leaves out the per-observation log_lik and y_rep.
import { mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { fileSink, readNetcdf, sampleConfig, writeStanCsv } from "@ppl/ppl";
import { runCli, tempDir, type CliResult } from "./helpers.ts";

const EIGHT = ["examples/eight_schools.ts", "--data", "examples/eight_schools.json"];
const COMMON = ["--backend", "cpu", "--chains", "2", "--warmup", "60", "--draws", "30", "--seed", "4", "--log-lik", "--predictive"];
const THETA = Array.from({ length: 8 }, (_, i) => `theta[${i + 1}]`);

let dir: string;
let fit: string;
let sampled: CliResult;

beforeAll(async () => {
  dir = tempDir("ppl-variables-");
  fit = join(dir, "fit");
  sampled = await runCli(["sample", ...EIGHT, ...COMMON, "--output", fit, "--quiet"]);
}, 120_000);

// The row names of a printed summary table (the lines between the header and the first blank line).
function rowNames(stdout: string): string[] {
  const lines = stdout.split("\n");
  const end = lines.indexOf("");
  return lines.slice(1, end).filter((l) => !/not shown/.test(l)).map((l) => l.split(/\s+/)[0]!);
}

describe("ppl sample", () => {
  it("by default prints every parameter but the per-observation log_lik and y_rep, and says how many rows it left out", () => {
    expect(sampled.code, sampled.stderr).toBe(0);
    expect(rowNames(sampled.stdout)).toEqual(["mu", "tau", ...THETA.map((t) => t.replace("theta", "theta_trans")), ...THETA]);
    expect(sampled.stdout).toMatch(/^16 per-observation rows not shown \(y_rep: 8, log_lik: 8\)( and \d+ warnings? about them)?; --variables y_rep,log_lik shows them$/m);
    // The files hold every column, whatever is printed.
    const header = readFileSync(join(fit, "chain-1.csv"), "utf8").split("\n").find((l) => l.startsWith("lp__"))!;
    expect(header).toContain("log_lik.8");
    expect(header).toContain("y_rep.8");
  });

  it("-v prints the variables asked for, in that order; an unknown one is refused before sampling", async () => {
    const r = await runCli(["sample", ...EIGHT, ...COMMON, "--warmup", "20", "--draws", "10", "-v", "y_rep,theta.2,tau", "--output", join(dir, "v"), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(rowNames(r.stdout)).toEqual([...THETA.map((t) => t.replace("theta", "y_rep")), "theta[2]", "tau"]);
    expect(r.stdout).not.toMatch(/not shown/);
    const bad = await runCli(["sample", ...EIGHT, ...COMMON, "--variables", "mu,sigma", "--output", join(dir, "bad"), "--quiet"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("ppl: --variables: 'sigma' is not a variable of this run (variables: mu, tau, theta_trans (8), theta (8), y_rep (8), log_lik (8))\n");
  });
});

describe("ppl summary", () => {
  it("shows every variable by default, and -v selects by base name or element, as Stan does", async () => {
    const all = await runCli(["summary", fit]);
    expect(all.code, all.stderr).toBe(0);
    expect(rowNames(all.stdout)).toHaveLength(2 + 8 + 8 + 8 + 8);
    const some = await runCli(["summary", fit, "-v", "theta,mu,log_lik[3]"]);
    expect(some.code, some.stderr).toBe(0);
    expect(rowNames(some.stdout)).toEqual([...THETA, "mu", "log_lik[3]"]);
    // The sampler's diagnostics are the run's, whatever is selected.
    expect(some.stdout).toMatch(/^Sampler diagnostics \(2 chains × 30 draws\):$/m);
    const json = await runCli(["summary", fit, "--json", "--variables", "tau"]);
    expect(Object.keys(JSON.parse(json.stdout) as object).filter((k) => !k.endsWith("__"))).toEqual(["tau"]);
    const bad = await runCli(["summary", fit, "-v", "theta[9]"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ppl: --variables: 'theta\[9\]' is not a variable of this run \(variables: mu, tau, theta_trans \(8\), theta \(8\), y_rep \(8\), log_lik \(8\)\)\n$/);
  });
});

describe("ppl report", () => {
  it("leaves out log_lik and y_rep by default and says so; --pairs takes base names; -v limits the panels", async () => {
    const out = join(dir, "r.html");
    const r = await runCli(["report", fit, "-o", out, "--pairs", "tau,theta"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: 16 per-observation rows not shown \(y_rep: 8, log_lik: 8\).*; --variables y_rep,log_lik shows them$/m);
    expect(r.stderr).toMatch(/^note: --pairs selects 9 variables; the pair plot shows the first 6 \(tau, theta\[1\], theta\[2\], theta\[3\], theta\[4\], theta\[5\]\)$/m);
    const html = readFileSync(out, "utf8");
    expect(html).toContain('data-params="tau,theta[1],theta[2],theta[3],theta[4],theta[5]"');
    expect(html.match(/<svg class="trace"/g)).toHaveLength(18);
    expect(html).not.toMatch(/<h3>(log_lik|y_rep)\[/);
    expect(html).toMatch(/<p class="note" id="hidden-variables">16 per-observation rows not shown/);

    const only = join(dir, "only.html");
    const v = await runCli(["report", fit, "-o", only, "-v", "mu,tau,log_lik"]);
    expect(v.code, v.stderr).toBe(0);
    const text = readFileSync(only, "utf8");
    expect(text.match(/<svg class="trace"/g)).toHaveLength(10);
    expect(text).not.toContain('id="hidden-variables"');
    const left = await runCli(["report", fit, "-o", only, "-v", "mu,tau", "--pairs", "mu,theta"]);
    expect(left.code).toBe(2);
    expect(left.stderr).toBe("ppl: --pairs: theta[1], theta[2], theta[3], … are left out of the report; add them to --variables\n");
  });
});

describe("ppl report of a model with many observations", () => {
  it("300 observations with log_lik and y_rep: by default the report plots the 2 parameters, not the 600 per-observation columns, and stays small", async () => {
    const run = join(dir, "many");
    mkdirSync(run);
    const names = ["mu", "sigma", ...Array.from({ length: 300 }, (_, i) => `y_rep[${i + 1}]`), ...Array.from({ length: 300 }, (_, i) => `log_lik[${i + 1}]`)];
    let state = 99;
    const uniform = (): number => ((state = (state * 1103515245 + 12345) % 2 ** 31) + 0.5) / 2 ** 31;
    for (let c = 0; c < 2; c++) {
      const w = writeStanCsv(fileSink(join(run, `chain-${c + 1}.csv`)), { config: sampleConfig({ model: "many", numSamples: 200, numWarmup: 200, seed: 1, chainId: c + 1 }), parameters: names });
      w.writeAdaptation({ stepsize: 0.5, inverseMetric: [1, 1] });
      for (let i = 0; i < 200; i++) w.writeDraw([-10 - uniform(), uniform(), 0.5, 3, 7, 0, 12, ...names.map(() => uniform())]);
      w.close({ warmup: 1, sampling: 1 });
    }
    const out = join(dir, "many.html");
    const r = await runCli(["report", run, "-o", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: 600 per-observation rows not shown \(y_rep: 300, log_lik: 300\)/m);
    const html = readFileSync(out, "utf8");
    expect(html.match(/<svg class="trace"/g)).toHaveLength(2);
    expect(statSync(out).size).toBeLessThan(512 * 1024);
  });
});

describe("ppl export", () => {
  it("-v writes the whole variables asked for (sample_stats and the data always); an element is refused", async () => {
    const nc = join(dir, "v.nc");
    const r = await runCli(["export", fit, "-o", nc, "-v", "mu,y_rep,log_lik", "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const file = await readNetcdf(nc);
    const vars = (g: string): string[] => [...file.get(g)!.keys()].filter((k) => !/_dim_\d+$|^chain$|^draw$/.test(k));
    expect(vars("posterior")).toEqual(["mu"]);
    expect(vars("posterior_predictive")).toEqual(["y"]);
    expect(vars("log_likelihood")).toEqual(["y"]);
    expect(vars("sample_stats")).toHaveLength(7);
    expect(vars("observed_data")).toEqual(["y"]);
    const bad = await runCli(["export", fit, "-o", nc, "-v", "theta[2]"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("ppl: --variables: export writes whole variables; give 'theta', not 'theta[2]'\n");
  });
});

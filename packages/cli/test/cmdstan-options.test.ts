// CmdStan's options of `ppl sample` and `ppl summary` on the CPU backend, end to end through the
// command: --init FILE, --save-warmup, --thin, --algorithm hmc --steps, --stepsize, --inv-metric,
// --refresh, `ppl --version` and `ppl summary --percentiles`.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { collectChains, quantile } from "@ppl/ppl";
import { cmdstanOptionCases, EIGHT } from "./cmdstan-options-cases.ts";
import { readCsv, ROOT, runCli, tempDir } from "./helpers.ts";

describe("ppl sample, CmdStan's options (--backend cpu)", () => {
  cmdstanOptionCases(["--backend", "cpu"]);

  it("--thin and --save-warmup keep the draws an unthinned run makes: every third of the same seed's", async () => {
    const dir = tempDir();
    const args = ["sample", ...EIGHT, "--backend", "cpu", "--chains", "1", "--warmup", "30", "--draws", "30", "--seed", "9"];
    const [full, thinned] = await Promise.all([
      runCli([...args, "--output", join(dir, "full")]),
      runCli([...args, "--thin", "3", "--save-warmup", "--output", join(dir, "thin")]),
    ]);
    expect(full.code, full.stderr).toBe(0);
    expect(thinned.code, thinned.stderr).toBe(0);
    const a = readCsv(join(dir, "full", "chain-1.csv"));
    const b = readCsv(join(dir, "thin", "chain-1.csv"));
    a.columns.forEach((_, j) => expect(Array.from(b.draws[j]!)).toEqual(Array.from(a.draws[j]!).filter((_, i) => i % 3 === 0)));
  });

  it("--thin with --save-warmup: the predictive draws are addressed by the written draw, so `ppl generate` over the thinned fit gives them again", async () => {
    const dir = tempDir();
    const fit = await runCli(["sample", ...EIGHT, "--backend", "cpu", "--chains", "2", "--warmup", "20", "--draws", "21", "--thin", "2", "--save-warmup", "--predictive", "--seed", "13", "--quiet", "--output", join(dir, "fit")]);
    expect(fit.code, fit.stderr).toBe(0);
    const gen = await runCli(["generate", ...EIGHT, "--fit", join(dir, "fit"), "--quiet", "--output", join(dir, "gen")]);
    expect(gen.code, gen.stderr).toBe(0);
    for (const c of [1, 2]) {
      const a = readCsv(join(dir, "fit", `chain-${c}.csv`));
      const b = readCsv(join(dir, "gen", `chain-${c}.csv`));
      expect(a.draws[0]!.length).toBe(11);
      const k = a.columns.indexOf("y_rep.3");
      expect(Array.from(b.draws[b.columns.indexOf("y_rep.3")]!)).toEqual(Array.from(a.draws[k]!));
    }
  });

  it("--algorithm hmc --steps 7: static HMC, 7 leapfrog steps a transition, recorded as CmdStan's engine = static", async () => {
    const out = join(tempDir(), "hmc");
    const r = await runCli(["sample", ...EIGHT, "--algorithm", "hmc", "--steps", "7", "--chains", "2", "--warmup", "100", "--draws", "50", "--seed", "2", "--backend", "cpu", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^backend: cpu \(f64\), as requested$/m);
    const csv = readCsv(join(out, "chain-1.csv"));
    expect(csv.config["engine"]).toBe("static");
    expect(csv.config["steps"]).toBe("7");
    expect(new Set(csv.draws[csv.columns.indexOf("n_leapfrog__")]!)).toEqual(new Set([7]));
    const text = readFileSync(join(out, "chain-1.csv"), "utf8");
    expect(text).toMatch(/^# {5}algorithm = hmc \(Default\)\n# {7}hmc\n# {9}engine = static\n# {11}static\n# {13}steps = 7$/m);
  });

  it("--algorithm hmc with --gpu-shape, and --steps without hmc, are usage errors saying what to do", async () => {
    // On a GPU static HMC runs on the host over the batched gradient (sample-vulkan-methods.test.ts): no NUTS kernel to lay out.
    const gpu = await runCli(["sample", ...EIGHT, "--algorithm", "hmc", "--backend", "vulkan", "--gpu-shape", "thread"]);
    expect(gpu.code).toBe(2);
    expect(gpu.stderr).toBe("ppl: --gpu-shape lays out the GPU's NUTS kernel; --algorithm hmc runs its transitions on the host over the GPU's batched gradient: drop --gpu-shape\n");
    const steps = await runCli(["sample", ...EIGHT, "--steps", "5"]);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toMatch(/^ppl: --steps is the number of leapfrog steps of --algorithm hmc; .*add --algorithm hmc\)$/m);
  });

  it("--refresh N: a progress line every N iterations off a terminal (none with 0 or by default), recorded in the header", async () => {
    const dir = tempDir();
    const args = ["sample", ...EIGHT, "--backend", "cpu", "--chains", "2", "--warmup", "40", "--draws", "40", "--seed", "3"];
    const [every, none, plain] = await Promise.all([
      runCli([...args, "--refresh", "20", "--output", join(dir, "a")]),
      runCli([...args, "--refresh", "0", "--output", join(dir, "b")]),
      runCli([...args, "--output", join(dir, "c")]),
    ]);
    for (const r of [every, none, plain]) expect(r.code, r.stderr).toBe(0);
    const lines = every.stderr.split("\n").filter((l) => l.startsWith("iteration "));
    expect(lines.map((l) => l.replace(/, elapsed .*$/, ""))).toEqual([
      "iteration 20 / 80 [ 25%] (warmup), 2 chains",
      "iteration 40 / 80 [ 50%] (warmup), 2 chains",
      "iteration 60 / 80 [ 75%] (sampling), 2 chains",
      "iteration 80 / 80 [100%] (sampling), 2 chains",
    ]);
    expect(none.stderr).not.toMatch(/^iteration /m);
    expect(plain.stderr).not.toMatch(/^iteration /m);
    expect(readCsv(join(dir, "a", "chain-1.csv")).config["refresh"]).toBe("20");
    expect(readFileSync(join(dir, "c", "chain-1.csv"), "utf8")).toMatch(/^# {3}refresh = 100 \(Default\)$/m);
  });
});

describe("ppl --version", () => {
  it("prints the CLI package's version and exits 0", async () => {
    const r = await runCli(["--version"]);
    expect(r.code).toBe(0);
    const pkg = JSON.parse(readFileSync(join(ROOT, "packages/cli/package.json"), "utf8")) as { version: string };
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });
});

describe("ppl summary --percentiles", () => {
  it("replaces the 5%, 50%, 95% columns (table and JSON) with R type 7 quantiles of the pooled draws at the percentiles asked for", async () => {
    const out = join(tempDir(), "run");
    const s = await runCli(["sample", ...EIGHT, "--backend", "cpu", "--chains", "2", "--warmup", "100", "--draws", "100", "--seed", "8", "--output", out, "--quiet"]);
    expect(s.code, s.stderr).toBe(0);
    const [table, json] = await Promise.all([runCli(["summary", out, "--percentiles", "2.5,50,97.5"]), runCli(["summary", out, "--json", "--percentiles", "2.5,97.5"])]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.split("\n")[0]!.trim().split(/\s+/)).toEqual(["mean", "MCSE", "sd", "MAD", "2.5%", "50%", "97.5%", "ESS_bulk", "ESS_tail", "R_hat"]);
    const chains = collectChains([1, 2].map((c) => readCsv(join(out, `chain-${c}.csv`))));
    const mu = Float64Array.from([...chains.parameters["mu"]![0]!, ...chains.parameters["mu"]![1]!]);
    const parsed = JSON.parse(json.stdout) as Record<string, Record<string, number>>;
    expect(Object.keys(parsed["mu"]!)).toEqual(["mean", "mcse_mean", "sd", "mad", "q2.5", "q97.5", "ess_bulk", "ess_tail", "rhat"]);
    expect(parsed["mu"]!["q2.5"]).toBe(quantile(mu, 0.025));
    expect(parsed["mu"]!["q97.5"]).toBe(quantile(mu, 0.975));
    const muRow = table.stdout.split("\n").find((l) => l.startsWith("mu "))!.trim().split(/\s+/);
    expect(Number(muRow[5])).toBeCloseTo(quantile(mu, 0.025), 2);
    const bad = await runCli(["summary", out, "--percentiles", "0,50"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ppl: option '--percentiles <list>' argument '0,50' is invalid\. expected comma-separated percentiles strictly between 0 and 100/m);
  });
});

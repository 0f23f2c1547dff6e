// `ppl sample` on the eight schools example, run as a child process: the files it writes, the
// summary it prints, and `ppl summary` reading the same files back.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, SAMPLER_COLUMNS, summarize, summaryToJson, type StanCsv } from "@ppl/ppl";
import { hasStackTrace, readCsv, runCli, runLauncher, tempDir, type CliResult } from "./helpers.ts";

const NAMES = ["mu", "tau", ...Array.from({ length: 8 }, (_, i) => `theta_trans.${i + 1}`), ...Array.from({ length: 8 }, (_, i) => `theta.${i + 1}`)];
const CHAINS = 4;
const WARMUP = 150;
const DRAWS = 120;

let out: string;
let run: CliResult;
let files: StanCsv[];

beforeAll(async () => {
  out = join(tempDir(), "run");
  run = await runCli([
    "sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json",
    "--chains", String(CHAINS), "--warmup", String(WARMUP), "--draws", String(DRAWS), "--seed", "11", "--output", out,
  ]);
  files = Array.from({ length: CHAINS }, (_, c) => readCsv(join(out, `chain-${c + 1}.csv`)));
});

/** The library's summary of the draws on disk. */
function librarySummary(fs: StanCsv[]) {
  const chains = collectChains(fs);
  return summarize(chains.parameters, chains.sampler ? { sampler: chains.sampler } : {});
}

describe("ppl sample", () => {
  it("exits 0, says which backend it chose and why, and writes one CSV per chain plus summary.json", () => {
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^backend: cpu \(f64\) — .*(is a CPU implementation|no Vulkan device|no usable Vulkan device)/m);
    for (let c = 1; c <= CHAINS; c++) expect(existsSync(join(out, `chain-${c}.csv`))).toBe(true);
    expect(existsSync(join(out, `chain-${CHAINS + 1}.csv`))).toBe(false);
    expect(existsSync(join(out, "summary.json"))).toBe(true);
    expect(hasStackTrace(run.stderr)).toBe(false);
  });

  it("writes Stan CSV: settings header with the seed, sampler columns, dotted names, adaptation, draws, timing", () => {
    files.forEach((f, c) => {
      expect(f.columns).toEqual([...SAMPLER_COLUMNS, ...NAMES]);
      expect(f.draws[0]!.length).toBe(DRAWS);
      expect(f.warmupDraws[0]!.length).toBe(0);
      expect(f.truncated).toBe(false);
      expect(f.config["seed"]).toBe("11");
      expect(f.config["num_warmup"]).toBe(String(WARMUP));
      expect(f.config["num_samples"]).toBe(String(DRAWS));
      expect(f.config["num_chains"]).toBe(String(CHAINS));
      expect(f.config["id"]).toBe(String(c + 1));
      expect(f.config["delta"]).toBe("0.8");
      expect(f.config["max_depth"]).toBe("10");
      expect(f.config["backend"]).toBe("cpu");
      expect(f.config["dtype"]).toBe("f64");
      expect(f.config["model"]).toBe("eight_schools_noncentered");
      expect(f.adaptation!.stepsize).toBeGreaterThan(0);
      expect(f.adaptation!.stepsize).toBe(f.draws[2]![0]);
      expect((f.adaptation!.inverseMetric as number[]).length).toBe(10);
      expect(f.timing!.total).toBeGreaterThan(0);
      // Every value is a finite number; theta = mu + tau * theta_trans holds row by row.
      for (const col of f.draws) for (const v of col) expect(Number.isFinite(v)).toBe(true);
      const at = (name: string) => f.draws[f.columns.indexOf(name)]!;
      for (let i = 0; i < DRAWS; i++) {
        expect(at("theta.3")[i]).toBeCloseTo(at("mu")[i]! + at("tau")[i]! * at("theta_trans.3")[i]!, 10);
        // exp of a very negative unconstrained value may round to 0, never below.
        expect(at("tau")[i]).toBeGreaterThanOrEqual(0);
      }
    });
  });

  it("prints the summary table that the library's summarize gives for the same draws", () => {
    const summary = librarySummary(files);
    const lines = run.stdout.split("\n");
    expect(lines[0]!.trim().split(/\s+/)).toEqual(["mean", "MCSE", "sd", "MAD", "5%", "50%", "95%", "ESS_bulk", "ESS_tail", "R_hat"]);
    const keys = ["mean", "mcse_mean", "sd", "mad", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"] as const;
    for (const p of summary.parameters) {
      const row = lines.find((l) => l.startsWith(p.name + " "));
      expect(row, p.name).toBeDefined();
      const cells = row!.trim().split(/\s+/).slice(1).map(Number);
      expect(cells).toHaveLength(10);
      keys.forEach((k, j) => {
        const want = p[k];
        if (Number.isNaN(want)) return expect(cells[j], `${p.name} ${k}`).toBeNaN();
        const tol = k === "ess_bulk" || k === "ess_tail" ? 0.51 : k === "rhat" ? 5e-4 : Math.abs(want) * 5e-4 + 1e-12;
        expect(Math.abs(cells[j]! - want), `${p.name} ${k}: ${cells[j]} vs ${want}`).toBeLessThanOrEqual(tol);
      });
    }
    expect(run.stdout).toMatch(/Sampler diagnostics \(4 chains × 120 draws\):/);
    expect(run.stdout).toMatch(/divergences: \d+ of 480/);
    expect(run.stdout).toMatch(/tree depth 10 reached: \d+ of 480/);
    expect(run.stdout).toMatch(/E-BFMI per chain: [\d.]+, [\d.]+, [\d.]+, [\d.]+/);
  });

  it("writes summary.json equal to the library's summary of the files", () => {
    const json = JSON.parse(readFileSync(join(out, "summary.json"), "utf8"));
    expect(json).toEqual(JSON.parse(JSON.stringify(summaryToJson(librarySummary(files)))));
    expect(Object.keys(json["theta[1]"])).toEqual(["mean", "mcse_mean", "sd", "mad", "q5", "q50", "q95", "ess_bulk", "ess_tail", "rhat"]);
  });

  it("round trip: `ppl summary DIR --json` reads back the same numbers as summary.json", async () => {
    const r = await runCli(["summary", out, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(JSON.parse(readFileSync(join(out, "summary.json"), "utf8")));
  });

  it("`ppl summary DIR` prints, from the files, the summary that `ppl sample` printed from the draws in memory", async () => {
    const r = await runCli(["summary", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(run.stdout);
  });

  it("`ppl summary FILES` (through the bin launcher) prints the same table as `ppl sample`", async () => {
    const paths = Array.from({ length: CHAINS }, (_, c) => join(out, `chain-${c + 1}.csv`));
    const r = await runLauncher(["summary", ...paths]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(run.stdout);
  });

  it("is reproducible: the same seed gives the same draws", async () => {
    const a = join(tempDir(), "a");
    const b = join(tempDir(), "b");
    const args = ["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "2", "--warmup", "30", "--draws", "10", "--seed", "5", "--quiet"];
    // b held a run with more chains before: its extra chain file must not survive into this run.
    mkdirSync(b, { recursive: true });
    writeFileSync(join(b, "chain-3.csv"), "stale");
    const [ra, rb] = await Promise.all([runCli([...args, "--output", a]), runCli([...args, "--output", b])]);
    expect(existsSync(join(b, "chain-3.csv"))).toBe(false);
    expect(ra.code, ra.stderr).toBe(0);
    expect(rb.code, rb.stderr).toBe(0);
    expect(ra.stderr).toBe("");
    for (const c of [1, 2]) expect(readCsv(join(a, `chain-${c}.csv`)).draws).toEqual(readCsv(join(b, `chain-${c}.csv`)).draws);
  });

  it("--dtype f32 computes the density in f32 on the CPU and records it in the header", async () => {
    const o = join(tempDir(), "f32");
    const r = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--backend", "cpu", "--dtype", "f32",
      "--chains", "1", "--warmup", "40", "--draws", "20", "--seed", "1", "--output", o]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^backend: cpu \(f32\), as requested$/m);
    const f = readCsv(join(o, "chain-1.csv"));
    expect(f.config["dtype"]).toBe("f32");
    expect(f.draws[0]!.length).toBe(20);
    // lp__ computed in f32 is an f32 value.
    for (const lp of f.draws[0]!) expect(Math.fround(lp)).toBe(lp);
  });

  it("--strict exits 1 when the diagnostics warn, after writing everything", async () => {
    const o = join(tempDir(), "strict");
    const r = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json",
      "--chains", "2", "--warmup", "20", "--draws", "20", "--seed", "1", "--output", o, "--quiet", "--strict"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/Warnings \(\d+\):/);
    expect(r.stderr).toMatch(/^--strict: the diagnostics gave \d+ warnings?; exiting with code 1$/m);
    expect(existsSync(join(o, "summary.json"))).toBe(true);
  });
});

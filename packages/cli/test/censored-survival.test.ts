// `ppl sample` on the censored survival example (m.observeCensored) on the CPU: the posterior of
// each group's rate against its closed form, Gamma(2 + events, 10 + time at risk), within Monte
// Carlo error, and predictive replicates censored where the data were.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, summarize, type StanCsv } from "@ppl/ppl";
import { readCsv, ROOT, runCli, tempDir, type CliResult } from "./helpers.ts";

const CHAINS = 4;
const DRAWS = 500;
const DATA = JSON.parse(readFileSync(join(ROOT, "examples/censored_survival.json"), "utf8")) as {
  N: number; G: number; group: number[]; t: number[]; censored: number[];
};

let run: CliResult;
let files: StanCsv[];

beforeAll(async () => {
  const out = join(tempDir(), "run");
  run = await runCli([
    "sample", "examples/censored_survival.ts", "--data", "examples/censored_survival.json", "--backend", "cpu",
    "--chains", String(CHAINS), "--warmup", "300", "--draws", String(DRAWS), "--seed", "7", "--predictive", "--quiet", "--output", out,
  ]);
  files = Array.from({ length: CHAINS }, (_, c) => readCsv(join(out, `chain-${c + 1}.csv`)));
});

describe("censored survival example", () => {
  it("samples, and each rate's posterior mean and sd match Gamma(2 + events, 10 + time at risk)", () => {
    expect(run.code, run.stderr).toBe(0);
    const chains = collectChains(files);
    const summary = summarize(chains.parameters);
    for (let g = 1; g <= DATA.G; g++) {
      const idx = DATA.group.map((v, i) => (v === g ? i : -1)).filter((i) => i >= 0);
      const shape = 2 + idx.filter((i) => DATA.censored[i] === 0).length;
      const rate = 10 + idx.reduce((s, i) => s + DATA.t[i]!, 0);
      // collectChains names parameters with brackets (the CSV column rate.1 is rate[1]).
      const p = summary.parameters.find((q) => q.name === `rate[${g}]`);
      if (!p) throw new Error(`rate ${g} is not in the summary (${summary.parameters.map((q) => q.name).join(", ")})`);
      // Within five Monte Carlo standard errors of the exact moments.
      expect(Math.abs(p.mean - shape / rate)).toBeLessThan(5 * p.mcse_mean);
      expect(Math.abs(p.sd - Math.sqrt(shape) / rate)).toBeLessThan(5 * p.mcse_sd);
    }
  });

  it("writes predictive replicates that are censored at the same limits", () => {
    const cols = files[0]!.columns;
    for (let i = 0; i < DATA.N; i++) {
      const k = cols.indexOf(`t_rep.${i + 1}`);
      expect(k, `t_rep.${i + 1}`).toBeGreaterThanOrEqual(0);
      const reps = files.flatMap((f) => Array.from(f.draws[k]!));
      expect(reps.every((v) => v > 0)).toBe(true);
      if (DATA.censored[i] === 1) expect(reps.every((v) => v <= DATA.t[i]!)).toBe(true);
    }
    // Uncensored times have no limit: some of their replicates exceed every follow-up time.
    const open = DATA.censored.map((c, i) => (c === 0 ? i : -1)).filter((i) => i >= 0);
    const above = open.some((i) => files.some((f) => Array.from(f.draws[cols.indexOf(`t_rep.${i + 1}`)]!).some((v) => v > 14)));
    expect(above).toBe(true);
  });
});

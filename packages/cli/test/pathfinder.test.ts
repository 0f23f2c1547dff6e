// `ppl pathfinder` and `ppl sample --init pathfinder` as a user runs them: pathfinder.csv in
// CmdStan's layout (settings, `lp_approx__,lp__,` then the constrained values and deterministics,
// one row a draw), draws of a normal posterior whose mean is the exact one within Monte Carlo
// error, --no-psis-resample writing every path's draws, the exit codes of a model without
// parameters and of one whose every path fails (no CSV), and chains started at Pathfinder's draws.
// The pathfinder command runs in process (a child process costs seconds to start); the run with
// --init goes through the CLI.
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { pathfinderCommand, type PathfinderCommandOptions } from "../src/commands/pathfinder.ts";
import { CliError } from "../src/exit-codes.ts";
import { readCsv, runCli, tempDir } from "./helpers.ts";
import { normalPosterior, POST_MEAN, POST_SD, writeModelFile } from "./normal-posterior.ts";

const tmp = tempDir("ppl-pathfinder-");
const modelFile = (name: string, body: string): string => writeModelFile(tmp, name, body);

const { model: NORMAL, data: DATA } = normalPosterior(tmp);

const DEFAULTS: PathfinderCommandOptions = {
  numPaths: 4, draws: 1000, psisResample: true, numElboDraws: 25, historySize: 5, maxLbfgsIters: 1000, init: 2, output: "output", quiet: true,
};

/** Runs `ppl pathfinder MODEL` in process: the exit code (a CliError's for a failure) and what it wrote. */
async function pathfinderRun(model: string, opts: Partial<PathfinderCommandOptions>): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } };
  try {
    const code = await pathfinderCommand(model, { ...DEFAULTS, ...opts }, io);
    return { code, stdout, stderr };
  } catch (e) {
    if (e instanceof CliError) return { code: e.exitCode, stdout, stderr: stderr + e.message };
    throw e;
  }
}

describe("ppl pathfinder", () => {
  it("writes pathfinder.csv in CmdStan's layout, draws matching the exact normal posterior, and prints means, ELBOs and the Pareto k", async () => {
    const out = join(tmp, "n1");
    const r = await pathfinderRun(NORMAL, { data: DATA, seed: 5, draws: 400, output: out });
    expect(r.code, r.stderr).toBe(0);
    const csv = readCsv(join(out, "pathfinder.csv"));
    expect(csv.columns).toEqual(["lp_approx__", "lp__", "mu", "twice"]);
    expect(csv.draws[0]!.length).toBe(400);
    expect(csv.config["method"]).toBe("pathfinder");
    expect(csv.config["num_paths"]).toBe("4");
    expect(csv.config["psis_resample"]).toBe("1");
    expect(r.stdout).toMatch(/^variable\s+mean\s+sd\nlp__ /);
    expect(r.stdout).toMatch(/Path 4: best iteration \d+ of \d+, ELBO /);
    // The approximation is exact on a normal posterior: every importance weight the same.
    expect(r.stdout).toMatch(/Pareto k none \(every importance weight is the same.*\): the draws are resampled/);
    const mu = csv.draws[2]!;
    mu.forEach((v, i) => expect(csv.draws[3]![i]).toBeCloseTo(2 * v, 12));
    // 400 draws resampled from 1600: the mean's variance σ²(1/1600 + 1/400), 4 standard errors.
    const mean = mu.reduce((a, b) => a + b, 0) / mu.length;
    expect(Math.abs(mean - POST_MEAN)).toBeLessThan(4 * POST_SD * Math.sqrt(1 / 1600 + 1 / 400));
    // lp_approx__ is the approximation's normalized log density: below −½ log(2πσ²) at most by the draw's z²/2.
    for (const v of csv.draws[0]!) expect(v).toBeLessThanOrEqual(-0.5 * Math.log(2 * Math.PI) + 2);
  });

  it("--no-psis-resample writes every path's draws", async () => {
    const out = join(tmp, "n2");
    const r = await pathfinderRun(NORMAL, { data: DATA, seed: 6, draws: 30, numPaths: 3, psisResample: false, output: out });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/not resampled/);
    const csv = readCsv(join(out, "pathfinder.csv"));
    expect(csv.draws[0]!.length).toBe(90);
    expect(csv.config["psis_resample"]).toBe("0");
  });

  it("a model without parameters is a model error (exit 3), every path failing exit 5, and neither writes pathfinder.csv", async () => {
    const none = modelFile("none", `model({ name: "none", data: {}, build() {} })`);
    const out = join(tmp, "none");
    const r = await pathfinderRun(none, { output: out });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/declared no parameters/);
    expect(existsSync(join(out, "pathfinder.csv"))).toBe(false);
    // A flat density: L-BFGS has no gradient to follow from any start.
    const flat = join(tmp, "flat.stan");
    writeFileSync(flat, "parameters { real mu; }\nmodel { }\n");
    const out2 = join(tmp, "flat");
    const f = await pathfinderRun(flat, { output: out2, seed: 1 });
    expect(f.code).toBe(5);
    expect(f.stderr).toMatch(/all 4 Pathfinder paths failed: L-BFGS made no step from the initial point/);
    expect(existsSync(join(out2, "pathfinder.csv"))).toBe(false);
  });
});

describe("ppl sample --init pathfinder", () => {
  it("chain c starts at row c of `ppl pathfinder --seed S`'s draws", async () => {
    const pf = join(tmp, "pf");
    const p = await pathfinderRun(NORMAL, { data: DATA, seed: 8, output: pf });
    expect(p.code, p.stderr).toBe(0);
    const rows = readCsv(join(pf, "pathfinder.csv")).draws[2]!;
    // One draw, no warmup, a step size so large the first leapfrog step diverges: each chain's draw is its initial point.
    const out = join(tmp, "s1");
    const r = await runCli(["sample", NORMAL, "--data", DATA, "--seed", "8", "--init", "pathfinder", "--chains", "3", "--warmup", "0", "--draws", "1", "--stepsize", "1e6", "--backend", "cpu", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/init: pathfinder \(4 of 4 paths, Pareto k/);
    for (let c = 0; c < 3; c++) {
      const chain = readCsv(join(out, `chain-${c + 1}.csv`));
      expect(chain.config["init"]).toBe("pathfinder");
      expect(chain.draws[chain.columns.indexOf("divergent__")]![0]).toBe(1);
      expect(chain.draws[chain.columns.indexOf("mu")]![0]).toBeCloseTo(rows[c]!, 12);
    }
  });
});

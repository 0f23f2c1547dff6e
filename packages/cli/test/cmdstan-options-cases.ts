// CmdStan's options of `ppl sample` (--init FILE, --save-warmup, --thin, --stepsize, --inv-metric),
// end to end through the command, as cases that run on a given backend: the CPU backend's test
// file and lavapipe's run the same checks.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { collectChains, summarize, summaryToJson } from "@ppl/ppl";
import { hasStackTrace, readCsv, runCli, tempDir } from "./helpers.ts";

/** eight schools, the model every case samples. */
export const EIGHT = ["examples/eight_schools.ts", "--data", "examples/eight_schools.json"] as const;

function column(csv: ReturnType<typeof readCsv>, name: string, warmup = false): number[] {
  const i = csv.columns.indexOf(name);
  if (i < 0) throw new Error(`no column ${name} in ${csv.columns.join(",")}`);
  return Array.from((warmup ? csv.warmupDraws : csv.draws)[i]!);
}

/** Registers the cases for `backend` (its extra arguments, e.g. --backend vulkan --gpu-shape thread). */
export function cmdstanOptionCases(backendArgs: readonly string[]): void {
  it("--init FILE: per-chain constrained values are where each chain starts (a tiny --stepsize and no warmup keep the first draw there)", async () => {
    const dir = tempDir();
    const init = join(dir, "init.json");
    // theta is a deterministic: ignored with a note, as CmdStan ignores what is not a parameter.
    writeFileSync(init, JSON.stringify([{ mu: 1.25, tau: 2, theta_trans: [0.5, 0, 0, 0, 0, 0, 0, -0.5], theta: [0, 0, 0, 0, 0, 0, 0, 0] }, { mu: -3, tau: 0.5, theta_trans: [0, 0, 0, 0, 0, 0, 0, 0] }]));
    const out = join(dir, "out");
    const r = await runCli(["sample", ...EIGHT, ...backendArgs, "--chains", "2", "--warmup", "0", "--draws", "1", "--max-depth", "2", "--stepsize", "1e-7", "--seed", "4", "--init", init, "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: init file '.*': ignoring theta \(not parameters of model 'eight_schools_noncentered'\)$/m);
    const [c1, c2] = [readCsv(join(out, "chain-1.csv")), readCsv(join(out, "chain-2.csv"))];
    expect(c1.config["init"]).toBe(init);
    // f32 on the GPU: the start goes through f32 leapfrogs of a 1e-7 step.
    expect(column(c1, "mu")[0]).toBeCloseTo(1.25, 4);
    expect(column(c1, "tau")[0]).toBeCloseTo(2, 4);
    expect(column(c1, "theta_trans.1")[0]).toBeCloseTo(0.5, 4);
    expect(column(c1, "theta_trans.8")[0]).toBeCloseTo(-0.5, 4);
    expect(column(c2, "mu")[0]).toBeCloseTo(-3, 4);
    expect(column(c2, "tau")[0]).toBeCloseTo(0.5, 4);
  });

  it("--stepsize and --inv-metric FILE with --warmup 0: the draws use them, the adaptation block and header record them", async () => {
    const dir = tempDir();
    const metric = join(dir, "metric.json");
    const inv = [2, 3, 1, 1, 1, 1, 1, 1, 1, 0.5];
    writeFileSync(metric, JSON.stringify({ inv_metric: inv }));
    const out = join(dir, "out");
    const r = await runCli(["sample", ...EIGHT, ...backendArgs, "--chains", "2", "--warmup", "0", "--draws", "20", "--stepsize", "0.3", "--inv-metric", metric, "--seed", "5", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    for (const c of [1, 2]) {
      const csv = readCsv(join(out, `chain-${c}.csv`));
      expect(csv.config["stepsize"]).toBe("0.3");
      expect(csv.config["metric_file"]).toBe(metric);
      expect(csv.adaptation?.stepsize).toBeCloseTo(0.3, 12);
      expect(csv.adaptation?.inverseMetric).toEqual(inv);
      expect(new Set(column(csv, "stepsize__").map((x) => x.toPrecision(6)))).toEqual(new Set(["0.300000"]));
    }
  });

  it("--save-warmup --thin 3: every third iteration of warmup and sampling is written; the readers and the summary skip the warmup rows", async () => {
    const dir = tempDir();
    const out = join(dir, "out");
    const r = await runCli(["sample", ...EIGHT, ...backendArgs, "--chains", "2", "--warmup", "50", "--draws", "40", "--save-warmup", "--thin", "3", "--seed", "6", "--output", out]);
    expect(r.code, r.stderr).toBe(0);
    const files = [1, 2].map((c) => readCsv(join(out, `chain-${c}.csv`)));
    for (const f of files) {
      expect(f.config["save_warmup"]).toBe("1");
      expect(f.config["thin"]).toBe("3");
      expect(f.warmupDraws[0]!.length).toBe(17); // iterations 0, 3, …, 48
      expect(f.draws[0]!.length).toBe(14); // sampling draws 0, 3, …, 39
      // The text between the warmup rows and the sampling rows is the adaptation block, as CmdStan writes it.
      const text = readFileSync(f === files[0] ? join(out, "chain-1.csv") : join(out, "chain-2.csv"), "utf8");
      const rows = text.split("\n");
      const adapt = rows.findIndex((l) => l.startsWith("# Adaptation terminated"));
      const header = rows.findIndex((l) => l.startsWith("lp__,"));
      expect(adapt - header - 1).toBe(17);
    }
    const summary = JSON.parse(readFileSync(join(out, "summary.json"), "utf8")) as Record<string, unknown>;
    const chains = collectChains(files);
    const library = summaryToJson(summarize(chains.parameters, chains.sampler ? { sampler: chains.sampler } : {}));
    expect(summary["mu"]).toEqual(library["mu"]);
    expect((summary["sampler__"] as { draws_per_chain: number }).draws_per_chain).toBe(14);
    const read = await runCli(["summary", out, "--json"]);
    expect(read.code, read.stderr).toBe(0);
    expect((JSON.parse(read.stdout) as Record<string, unknown>)["mu"]).toEqual(summary["mu"]);
  });

  it("bad --init and --inv-metric files are usage errors of one line naming the file and the fix", async () => {
    const dir = tempDir();
    const init = join(dir, "init.json");
    writeFileSync(init, JSON.stringify({ mu: 0, tau: -1 }));
    const bad = await runCli(["sample", ...EIGHT, ...backendArgs, "--init", init, "--output", join(dir, "a")]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^ppl: init file '.*init\.json': 'tau' = -1 violates its constraint .*; give constrained values within each parameter's support$/m);
    const metric = join(dir, "metric.json");
    writeFileSync(metric, JSON.stringify({ inv_metric: [1, 2, 3] }));
    const short = await runCli(["sample", ...EIGHT, ...backendArgs, "--inv-metric", metric, "--output", join(dir, "b")]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/^ppl: inverse metric file '.*metric\.json' has 3 values; the model has 10 unconstrained parameters, so give 10 values$/m);
    const dense = await runCli(["sample", ...EIGHT, ...backendArgs, "--metric", "dense", "--inv-metric", metric, "--output", join(dir, "c")]);
    expect(dense.code).toBe(2);
    expect(dense.stderr).toMatch(/holds a vector, the run adapts a dense metric; give --metric diag/);
    for (const x of [bad, short, dense]) expect(hasStackTrace(x.stderr)).toBe(false);
  });
}

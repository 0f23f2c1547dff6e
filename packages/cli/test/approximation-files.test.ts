// `ppl summary` and `ppl export` on the approximations' files: laplace.csv (log_p__, log_g__, no
// lp__), variational.csv (its first row the approximation's mean, not a draw) and optimize.csv (one
// point): the draws' mean, sd and quantiles without MCSE, ESS or R-hat and a note saying why;
// ArviZ's groups with log_p, log_g and lp in sample_stats; a directory holding two methods refused
// with the fix. Summary and export run in process on files the CLI wrote.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { exportCommand } from "../src/commands/export.ts";
import { summaryCommand } from "../src/commands/summary.ts";
import { CliError } from "../src/exit-codes.ts";
import { readNetcdf } from "@ppl/ppl";
import { readCsv, runCli, tempDir } from "./helpers.ts";

const LINEAR = ["examples/linear_regression.ts", "--data", "examples/linear_regression.json", "--seed", "4", "--quiet"];
let dir: string;

function capture(): { io: { stdout: { write(s: string): boolean }; stderr: { write(s: string): boolean } }; out: () => string; err: () => string } {
  let out = "";
  let err = "";
  return { io: { stdout: { write: (s) => ((out += s), true) }, stderr: { write: (s) => ((err += s), true) } }, out: () => out, err: () => err };
}

const pooledMean = (x: Float64Array) => x.reduce((a, b) => a + b, 0) / x.length;

beforeAll(async () => {
  dir = tempDir("ppl-approx-files-");
  const runs = await Promise.all([
    runCli(["laplace", ...LINEAR, "--draws", "300", "--output", join(dir, "laplace")]),
    runCli(["variational", ...LINEAR, "--draws", "300", "-o", join(dir, "variational")]),
    runCli(["optimize", ...LINEAR, "--output", join(dir, "optimize")]),
  ]);
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
}, 120_000);

describe("ppl summary of an approximation", () => {
  it.each(["laplace", "variational"])("%s.csv: mean, sd, MAD and quantiles of the draws, no MCSE/ESS/R-hat, and a note saying why", (method) => {
    const c = capture();
    expect(summaryCommand([join(dir, method)], { json: false }, c.io)).toBe(0);
    const lines = c.out().split("\n");
    expect(lines[0]).toMatch(/^\s+mean\s+sd\s+MAD\s+5%\s+50%\s+95%$/);
    expect(lines.slice(0, -2).join("\n")).not.toMatch(/R_hat|ESS|MCSE/);
    expect(c.out()).toMatch(/300 (independent )?draws .*approximate draws, not MCMC, so no MCSE, ESS or R-hat/);
    // The mean column is the draws' mean (variational: without the first row, the approximation's mean).
    const csv = readCsv(join(dir, method, `${method}.csv`));
    const alpha = csv.draws[csv.columns.indexOf("alpha")]!;
    const draws = method === "variational" ? alpha.subarray(1) : alpha;
    const json = capture();
    summaryCommand([join(dir, method)], { json: true, percentiles: [10, 90] }, json.io);
    const parsed = JSON.parse(json.out()) as Record<string, Record<string, number>>;
    expect(parsed["alpha"]!["mean"]).toBeCloseTo(pooledMean(draws), 12);
    expect(Object.keys(parsed["alpha"]!)).toEqual(["mean", "sd", "mad", "q10", "q90"]);
  });

  it("optimize.csv: the estimate alone, said to be a point", () => {
    const c = capture();
    expect(summaryCommand([join(dir, "optimize")], { json: false }, c.io)).toBe(0);
    expect(c.out()).toMatch(/^\s+estimate\nalpha\s+\S+\n/);
    expect(c.out()).toMatch(/a point estimate, not draws/);
  });

  it("a directory holding two methods' files is a usage error naming the fix", () => {
    const mixed = join(dir, "mixed");
    mkdirSync(mixed, { recursive: true });
    copyFileSync(join(dir, "laplace", "laplace.csv"), join(mixed, "laplace.csv"));
    copyFileSync(join(dir, "optimize", "optimize.csv"), join(mixed, "optimize.csv"));
    const c = capture();
    expect(() => summaryCommand([mixed], { json: false }, c.io)).toThrow(CliError);
    expect(() => summaryCommand([mixed], { json: false }, c.io)).toThrow(/holds the output of laplace but .*optimize\.csv' the output of optimize: they are not one run; give one file/);
  });
});

describe("ppl export of an approximation", () => {
  it.each([["laplace", ["log_p", "log_g"]], ["variational", ["lp", "log_p", "log_g"]]] as const)("%s: posterior of the draws, sample_stats %j", async (method, stats) => {
    const nc = join(dir, `${method}.nc`);
    const c = capture();
    expect(await exportCommand(join(dir, method), { output: nc, quiet: false }, c.io)).toBe(0);
    const file = await readNetcdf(nc);
    const csv = readCsv(join(dir, method, `${method}.csv`));
    const skip = method === "variational" ? 1 : 0;
    const beta = file.get("posterior")!.get("beta")!;
    expect(beta.shape).toEqual([1, 300, 3]);
    expect([...file.get("sample_stats")!.keys()].filter((k) => k !== "chain" && k !== "draw")).toEqual([...stats]);
    expect(file.get("sample_stats")!.get("log_p")!.values).toEqual(Array.from(csv.draws[csv.columns.indexOf("log_p__")]!.subarray(skip)));
    expect(file.get("posterior")!.get("sigma")!.values).toEqual(Array.from(csv.draws[csv.columns.indexOf("sigma")]!.subarray(skip)));
    // The header records the observed terms: y is observed_data, the rest constant_data.
    expect([...file.get("observed_data")!.keys()].filter((k) => !k.includes("_dim_"))).toEqual(["y"]);
    expect(file.get("constant_data")!.has("y")).toBe(false);
  });
});

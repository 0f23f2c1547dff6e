// `approximate(model, data, { method })` from TypeScript, as a script calls it: the same draws as
// `ppl laplace`, `ppl pathfinder` and `ppl variational` at the same seed (the commands are built on
// it), the same CSV file from fit.writeCsv, a normal posterior's exact moments within Monte
// Carlo error, and typed errors that name the fix. The commands run in process.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { approximate, FitError, optimize, type ApproximateOptions } from "@ppl/ppl";
import { optimizeCommand, OPTIMIZE_DEFAULTS } from "../src/commands/optimize.ts";
import { laplaceCommand } from "../src/commands/laplace.ts";
import { pathfinderCommand } from "../src/commands/pathfinder.ts";
import { variationalCommand } from "../src/commands/variational.ts";
import type { CommandIO } from "../src/io.ts";
import { loadModel } from "../src/load-model.ts";
import { readCsv, tempDir } from "./helpers.ts";
import { normalPosterior, NORMAL_DATA_VALUES, POST_MEAN, POST_SD, writeModelFile } from "./normal-posterior.ts";

const tmp = tempDir("ppl-approximate-");
const modelFile = (name: string, body: string): string => writeModelFile(tmp, name, body);
const { model: NORMAL, data: DATA_FILE } = normalPosterior(tmp);
const DATA = NORMAL_DATA_VALUES;

const quietIo: CommandIO = { stdout: { write: () => true }, stderr: { write: () => true } };
const common = { init: 2, seed: 7, quiet: true } as const;

// The command of each method with the API's settings: 300 draws, seed 7.
const commands: Record<ApproximateOptions["method"], (out: string) => Promise<number>> = {
  laplace: (out) => laplaceCommand(NORMAL, { ...common, data: DATA_FILE, draws: 300, jacobian: true, output: out }, quietIo),
  pathfinder: (out) => pathfinderCommand(NORMAL, { ...common, data: DATA_FILE, draws: 300, numPaths: 4, psisResample: true, numElboDraws: 25, historySize: 5, maxLbfgsIters: 1000, output: out }, quietIo),
  variational: (out) => variationalCommand(NORMAL, {
    ...common, data: DATA_FILE, draws: 300, algorithm: "meanfield", iter: 10000, gradSamples: 1, elboSamples: 100, eta: 1, adaptEngaged: true, adaptIter: 50,
    tolRelObj: 0.01, evalElbo: 100, output: out,
  }, quietIo),
};

describe("approximate(model, data, options)", () => {
  it.each(["laplace", "pathfinder", "variational"] as const)("%s: the CLI's draws at the same seed, and writeCsv writes the CLI's file", async (method) => {
    const model = await loadModel(NORMAL);
    const fit = await approximate(model, DATA, { method, seed: 7, draws: 300 });
    expect(fit.method).toBe(method);
    expect(fit.names).toEqual(["mu", "twice"]);
    expect(fit.size).toBe(300);
    const out = join(tmp, `cli-${method}`);
    expect(await commands[method](out)).toBe(0);
    const cli = readCsv(join(out, `${method}.csv`));
    // variational.csv's first row is the approximation's mean: fit.center.
    const skip = method === "variational" ? 1 : 0;
    expect(Array.from(fit.draws("mu"))).toEqual(Array.from(cli.draws[cli.columns.indexOf("mu")]!.subarray(skip)));
    expect(Array.from(fit.draws("twice"))).toEqual(Array.from(cli.draws[cli.columns.indexOf("twice")]!.subarray(skip)));
    if (method === "variational") expect(fit.center![0]).toBe(cli.draws[cli.columns.indexOf("mu")]![0]);
    // The API's file is the CLI's but for the lines naming the data and output files, and the timing.
    const api = fit.writeCsv(join(tmp, `api-${method}`));
    const strip = (text: string) => text.split("\n").filter((l) => !/file =|Elapsed|seconds|^#\s*$/.test(l)).join("\n");
    expect(strip(readFileSync(api, "utf8"))).toEqual(strip(readFileSync(join(out, `${method}.csv`), "utf8")));
  });

  it("laplace: a normal posterior's mean and sd within Monte Carlo error; variable() and summary() by name", async () => {
    const n = 4000;
    const fit = await approximate(await loadModel(NORMAL), DATA, { method: "laplace", seed: 3, draws: n });
    const row = fit.summary().find((r) => r.name === "mu")!;
    // The approximation is exact here: the mean within 4 standard errors, the sd within 4 of its own (sd·sqrt(1/(2(n−1)))).
    expect(Math.abs(row.mean - POST_MEAN)).toBeLessThan(4 * POST_SD / Math.sqrt(n));
    expect(Math.abs(row.sd - POST_SD)).toBeLessThan(4 * POST_SD / Math.sqrt(2 * (n - 1)));
    expect(row.q5).toBeLessThan(row.q50);
    expect(row.q50).toBeLessThan(row.q95);
    const twice = fit.variable("twice");
    expect(twice.shape).toEqual([]);
    expect(Array.from(twice.chains[0]!)).toEqual(Array.from(fit.draws("mu"), (m) => 2 * m));
    expect(fit.draws("log_p__").length).toBe(n);
    expect(Number.isNaN(fit.paretoK)).toBe(true);
  });

  it("optimize: the CLI's mode and file at the same seed; without the Jacobian the normal posterior's mean", async () => {
    const fit = await optimize(await loadModel(NORMAL), DATA, { seed: 7 });
    expect(fit.converged).toBe(true);
    expect(fit.value("mu")).toBeCloseTo(POST_MEAN, 6);
    expect(fit.value("twice")).toBe(2 * fit.value("mu"));
    expect(fit.variable("mu")).toEqual({ name: "mu", shape: [], values: Float64Array.of(fit.value("mu")) });
    const out = join(tmp, "cli-optimize");
    const code = await optimizeCommand(NORMAL, { ...common, ...OPTIMIZE_DEFAULTS, data: DATA_FILE, algorithm: "lbfgs", jacobian: false, output: out }, quietIo);
    expect(code).toBe(0);
    const cli = readCsv(join(out, "optimize.csv"));
    expect(cli.draws[cli.columns.indexOf("mu")]![0]).toBe(fit.value("mu"));
    expect(cli.draws[cli.columns.indexOf("lp__")]![0]).toBe(fit.lp);
    const strip = (text: string) => text.split("\n").filter((l) => !/file =|Elapsed|seconds|^#\s*$/.test(l)).join("\n");
    expect(strip(readFileSync(fit.writeCsv(join(tmp, "api-optimize")), "utf8"))).toEqual(strip(readFileSync(join(out, "optimize.csv"), "utf8")));
  });

  it("names the fix: an unknown variable, and a model whose density is not finite anywhere", async () => {
    const fit = await approximate(await loadModel(NORMAL), DATA, { method: "pathfinder", seed: 1, draws: 50 });
    expect(() => fit.draws("sigma")).toThrow(FitError);
    expect(() => fit.draws("sigma")).toThrow(/has no variable 'sigma'; its variables are mu, twice/);
    // The posterior is normal: Pathfinder's approximation is it up to its constant, every importance weight the same.
    expect(fit.paretoK).toBeNaN();
    expect(fit.notes.at(-1)).toMatch(/^Pareto k none/);
    // y = 5 lies outside (μ − 10, μ − 9) for every μ in the initial points' (−2, 2).
    const nowhere = modelFile("nowhere", `model({ name: "bad", data: {}, build(m) {
      const mu = m.param("mu", normal(0, 1));
      m.observe(5, uniform(mu.sub(10), mu.sub(9)));
    } })`);
    await expect(approximate(await loadModel(nowhere), {}, { method: "laplace", seed: 1 })).rejects.toThrow(/not finite at 100 random initial points/);
  });
});

// sample(model, data, { predictive: true, logLik: true }) holds what `ppl sample --predictive
// --log-lik` writes for the same seed: the generated quantities, the predictive draws y_rep and the
// pointwise log-likelihood, the same bits column by column; and fit.toInferenceData(path) is the
// file `ppl export` writes of that run, group by group (posterior, posterior_predictive,
// log_likelihood, sample_stats, observed_data, constant_data).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FitError, model, normal, readNetcdf, sample, type Fit } from "@ppl/ppl";
import eightGq from "./fixtures/predictive/eight_schools_gq.ts";
import { exportCommand } from "../src/commands/export.ts";
import { readCsv, ROOT, runCli, tempDir } from "./helpers.ts";

const MODEL = "packages/cli/test/fixtures/predictive/eight_schools_gq.ts";
const DATA_FILE = join(ROOT, "examples/eight_schools.json");
const DATA = JSON.parse(readFileSync(DATA_FILE, "utf8")) as Record<string, unknown>;
const RUN = { chains: 2, warmup: 100, draws: 30, seed: 23 };
const quiet = { stdout: { write: () => true }, stderr: { write: () => true } };

let fit: Fit;
let cliDir: string;
let dir: string;

beforeAll(async () => {
  dir = tempDir("fit-predictive-");
  cliDir = join(dir, "cli");
  const [made, cli] = await Promise.all([
    sample(eightGq, DATA, { ...RUN, predictive: true, logLik: true }),
    runCli(["sample", MODEL, "--data", DATA_FILE, "--chains", "2", "--warmup", "100", "--draws", "30", "--seed", "23", "--predictive", "--log-lik", "--backend", "cpu", "--output", cliDir, "--quiet"]),
  ]);
  expect(cli.code, cli.stderr).toBe(0);
  fit = made;
}, 120_000);

describe("sample(model, data, { predictive, logLik })", () => {
  it("holds every column ppl sample --predictive --log-lik writes, the same bits for the same seed", () => {
    expect(fit.variableNames()).toEqual(["mu", "tau", "theta_trans", "theta", "theta_new", "z", "y_rep", "log_lik"]);
    expect(fit.variable("y_rep").shape).toEqual([8]);
    expect(fit.variable("log_lik").shape).toEqual([8]);
    for (let c = 0; c < 2; c++) {
      const csv = readCsv(join(cliDir, `chain-${c + 1}.csv`));
      // The CSV spells y_rep[1] as y_rep.1; every column but the sampler's is one of the Fit's names.
      const names = csv.columns.filter((n) => !n.endsWith("__")).map((n) => n.replace(/\.(\d+)$/, "[$1]"));
      expect(names).toEqual(fit.names);
      csv.columns.forEach((column, k) => {
        const name = column.endsWith("__") ? column : column.replace(/\.(\d+)$/, "[$1]");
        expect(Array.from(fit.draws(name)[c]!), `chain ${c + 1} ${column}`).toEqual(Array.from(csv.draws[k]!));
      });
    }
  });

  it("writes the InferenceData ppl export writes of that run, group by group", async () => {
    const apiPath = join(dir, "api.nc");
    await fit.toInferenceData(apiPath);
    expect(await exportCommand(cliDir, { output: join(dir, "cli.nc"), data: DATA_FILE, quiet: true }, quiet)).toBe(0);
    const [api, cli] = await Promise.all([readNetcdf(apiPath), readNetcdf(join(dir, "cli.nc"))]);
    expect([...api.keys()]).toEqual(["posterior", "posterior_predictive", "log_likelihood", "sample_stats", "observed_data", "constant_data"]);
    expect([...api.keys()]).toEqual([...cli.keys()]);
    for (const [name, group] of cli) {
      const mine = api.get(name)!;
      expect([...mine.keys()], name).toEqual([...group.keys()]);
      for (const [v, variable] of group) expect(mine.get(v), `${name}/${v}`).toEqual(variable);
    }
    expect(api.get("posterior_predictive")!.get("y")!.shape).toEqual([2, 30, 8]);
    expect(api.get("posterior")!.get("theta_new")!.shape).toEqual([2, 30]);
    for (const [name, attrs] of cli.attrs) {
      const { created_at: _a, ...rest } = attrs;
      const { created_at: _b, ...mine } = api.attrs.get(name)!;
      expect(mine, name).toEqual(rest);
    }
  });

  it("leaves y_rep and log_lik out unless asked, and refuses logLik for a model that observes nothing", async () => {
    const plain = await sample(eightGq, DATA, { ...RUN, draws: 5 });
    expect(plain.variableNames()).toEqual(["mu", "tau", "theta_trans", "theta", "theta_new", "z"]);
    expect(() => plain.draws("y_rep[1]")).toThrow(FitError);
    const priorOnly = model({ name: "prior_only", data: {}, build(m) {
      m.param("x", normal(0, 1));
    } });
    await expect(sample(priorOnly, {}, { chains: 1, warmup: 10, draws: 5, seed: 1, logLik: true })).rejects.toThrow(/logLik: true.*leave logLik out/);
  });
});

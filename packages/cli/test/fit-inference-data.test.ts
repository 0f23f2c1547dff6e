// fit.toInferenceData(path) from the TypeScript API writes the file `ppl export` writes for the same
// run: eight schools sampled through sample(model, data), its netCDF file beside the one the CLI's
// export makes of fit.writeCsv(dir, { logLik: true }) — the same groups, variables, dims, dtypes,
// values and attributes (read back with readNetcdf) — with observed_data holding y only; and an
// ApproximateFit's file, whose draws and statistics are those ppl export writes of its CSV file.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { approximate, readNetcdf, sample, type Fit, type ReadVariable } from "@ppl/ppl";
import eightSchools from "../../../examples/eight_schools.ts";
import { exportCommand } from "../src/commands/export.ts";
import { ROOT, tempDir } from "./helpers.ts";

const DATA_FILE = join(ROOT, "examples/eight_schools.json");
const CHAINS = 2;
const DRAWS = 30;

type NetcdfFile = Awaited<ReturnType<typeof readNetcdf>>;

let fit: Fit;
let api: NetcdfFile;
let cli: NetcdfFile;
let written: string;
let apiPath: string;

beforeAll(async () => {
  const dir = tempDir("fit-idata-");
  const data = JSON.parse(readFileSync(DATA_FILE, "utf8")) as Record<string, unknown>;
  fit = await sample(eightSchools, data, { chains: CHAINS, warmup: 100, draws: DRAWS, seed: 21 });
  apiPath = join(dir, "api.nc");
  written = await fit.toInferenceData(apiPath);
  fit.writeCsv(join(dir, "csv"), { logLik: true });
  let err = "";
  const io = { stdout: { write: () => true }, stderr: { write: (s: string) => ((err += s), true) } };
  const code = await exportCommand(join(dir, "csv"), { output: join(dir, "cli.nc"), data: DATA_FILE, quiet: true }, io);
  expect(code, err).toBe(0);
  [api, cli] = await Promise.all([readNetcdf(apiPath), readNetcdf(join(dir, "cli.nc"))]);
}, 60_000);

const withoutValues = (v: ReadVariable) => ({ shape: v.shape, dims: v.dims, dtype: v.dtype });

describe("fit.toInferenceData(path)", () => {
  it("resolves to the path it wrote: posterior, log_likelihood, sample_stats, observed_data, constant_data", () => {
    expect(written).toBe(apiPath);
    expect([...api.keys()]).toEqual(["posterior", "log_likelihood", "sample_stats", "observed_data", "constant_data"]);
    expect(api.get("posterior")!.get("theta")!.shape).toEqual([CHAINS, DRAWS, 8]);
  });

  it("writes the groups, variables, dims, dtypes and values that ppl export writes of fit.writeCsv's files", () => {
    expect([...api.keys()]).toEqual([...cli.keys()]);
    for (const [name, group] of cli) {
      const mine = api.get(name)!;
      expect([...mine.keys()], name).toEqual([...group.keys()]);
      for (const [v, variable] of group) {
        expect(withoutValues(mine.get(v)!), `${name}/${v}`).toEqual(withoutValues(variable));
        expect(mine.get(v)!.values, `${name}/${v}`).toEqual(variable.values);
      }
    }
    // The same attributes on every group, but the time of writing.
    for (const [name, attrs] of cli.attrs) {
      const { created_at: _a, ...rest } = attrs;
      const { created_at: _b, ...mine } = api.attrs.get(name)!;
      expect(mine, name).toEqual(rest);
      expect(mine, name).toMatchObject({ inference_library: "ppl", model: "eight_schools_noncentered" });
    }
  });

  it("observed_data holds y only, under its name; J (int64) and sigma go to constant_data; log_lik is keyed by y, as fit.loo() computes it", () => {
    const observed = api.get("observed_data")!;
    expect([...observed.keys()].filter((k) => !k.endsWith("_dim_0"))).toEqual(["y"]);
    expect(observed.get("y")!.values).toEqual([28, 8, -3, 7, -1, 1, 18, 12]);
    const constant = api.get("constant_data")!;
    expect(constant.get("J")!).toMatchObject({ values: [8], dtype: "<q", shape: [] });
    expect(constant.get("sigma")!.values).toEqual([15, 10, 16, 11, 9, 11, 10, 18]);
    const logLik = api.get("log_likelihood")!.get("y")!;
    expect(logLik.dims).toEqual(["chain", "draw", "y_dim_0"]);
    // Each entry is normal(y[k] | theta[k], sigma[k]) at that draw (to rounding: the compiled density sums its terms in another order).
    const theta = api.get("posterior")!.get("theta")!.values;
    const y = [28, 8, -3, 7, -1, 1, 18, 12];
    const sigma = [15, 10, 16, 11, 9, 11, 10, 18];
    logLik.values.forEach((v, i) => {
      const k = i % 8;
      const expected = -0.5 * Math.log(2 * Math.PI) - Math.log(sigma[k]!) - 0.5 * ((y[k]! - theta[i]!) / sigma[k]!) ** 2;
      expect(Math.abs(v - expected), `entry ${i}`).toBeLessThan(1e-12 * Math.max(1, Math.abs(expected)));
    });
  });
});

describe("approximateFit.toInferenceData(path)", () => {
  it("writes the draws as one chain with the method's statistics, as ppl export does of fit.writeCsv's file, and the observed data as the Fit does", async () => {
    const dir = tempDir("approx-idata-");
    const data = JSON.parse(readFileSync(DATA_FILE, "utf8")) as Record<string, unknown>;
    const approx = await approximate(eightSchools, data, { method: "laplace", draws: 50, seed: 3 });
    const path = join(dir, "laplace.nc");
    expect(await approx.toInferenceData(path)).toBe(path);
    approx.writeCsv(join(dir, "csv"));
    const io = { stdout: { write: () => true }, stderr: { write: () => true } };
    expect(await exportCommand(join(dir, "csv"), { output: join(dir, "cli.nc"), data: DATA_FILE, quiet: true }, io)).toBe(0);
    const [mine, theirs] = await Promise.all([readNetcdf(path), readNetcdf(join(dir, "cli.nc"))]);
    expect([...mine.keys()]).toEqual(["posterior", "log_likelihood", "sample_stats", "observed_data", "constant_data"]);
    for (const name of ["posterior", "sample_stats"]) {
      const group = theirs.get(name)!;
      expect([...mine.get(name)!.keys()], name).toEqual([...group.keys()]);
      for (const [v, variable] of group) expect(mine.get(name)!.get(v), `${name}/${v}`).toEqual(variable);
    }
    expect(mine.get("posterior")!.get("theta")!.shape).toEqual([1, 50, 8]);
    expect(mine.attrs.get("posterior")).toMatchObject({ inference_method: "laplace", model: "eight_schools_noncentered" });
    expect([...mine.get("observed_data")!.keys()].filter((k) => !k.endsWith("_dim_0"))).toEqual(["y"]);
    expect(mine.get("log_likelihood")!.get("y")!.shape).toEqual([1, 50, 8]);
  });
});

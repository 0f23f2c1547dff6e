// `ppl export DIR -o run.nc`: a run (with --log-lik and --predictive) and a prior run of eight
// schools as ArviZ's InferenceData in netCDF4. Read back always with h5wasm (groups, dims from the
// attached dimension scales, values equal to the CSV columns), and with Python's xarray where it
// is importable (python3-xarray and python3-netcdf4).
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, type ChainDraws } from "@ppl/ppl";
import { readNetcdf } from "../src/netcdf.ts";
import { readCsv, runCli, tempDir, type CliResult } from "./helpers.ts";

const EIGHT = ["examples/eight_schools.ts", "--data", "examples/eight_schools.json"];
const CHAINS = 2;
const DRAWS = 40;

let dir: string;
let nc: string;
let exported: CliResult;
let posterior: ChainDraws;
let prior: ChainDraws;

beforeAll(async () => {
  dir = tempDir();
  const common = ["--backend", "cpu", "--chains", String(CHAINS), "--draws", String(DRAWS), "--seed", "12", "--quiet"];
  const [fit, pri] = await Promise.all([
    runCli(["sample", ...EIGHT, ...common, "--warmup", "100", "--log-lik", "--predictive", "--output", join(dir, "fit")]),
    runCli(["sample", ...EIGHT, ...common, "--prior", "--output", join(dir, "prior")]),
  ]);
  expect(fit.code, fit.stderr).toBe(0);
  expect(pri.code, pri.stderr).toBe(0);
  nc = join(dir, "run.nc");
  exported = await runCli(["export", join(dir, "fit"), "--prior", join(dir, "prior"), "-o", nc]);
  posterior = collectChains(Array.from({ length: CHAINS }, (_, c) => readCsv(join(dir, "fit", `chain-${c + 1}.csv`))));
  prior = collectChains(Array.from({ length: CHAINS }, (_, c) => readCsv(join(dir, "prior", `chain-${c + 1}.csv`))));
}, 120_000);

// The column's draws in [chain, draw] order, and a variable's entry k of each draw.
const flat = (d: ChainDraws, column: string): number[] => d.columns[column]!.flatMap((c) => Array.from(c));
const entry = (v: { shape: number[]; values: number[] }, k: number): number[] => {
  const size = v.shape.slice(2).reduce((a, b) => a * b, 1);
  return Array.from({ length: v.shape[0]! * v.shape[1]! }, (_, i) => v.values[i * size + k]!);
};

describe("ppl export", () => {
  it("writes every group, each variable [chain, draw, …] with its dims, values equal to the CSVs (read back with h5wasm)", async () => {
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toMatch(/^wrote run\.nc: posterior \(4\), posterior_predictive \(1\), log_likelihood \(1\), sample_stats \(7\), prior \(4\), prior_predictive \(1\), observed_data \(3\); open it with arviz\.from_netcdf/m);
    const file = await readNetcdf(nc);
    expect([...file.keys()]).toEqual(["posterior", "posterior_predictive", "log_likelihood", "sample_stats", "prior", "prior_predictive", "observed_data"]);
    const post = file.get("posterior")!;
    expect(post.get("mu")!.dims).toEqual(["chain", "draw"]);
    expect(post.get("mu")!.values).toEqual(flat(posterior, "mu"));
    expect(post.get("theta")!.dims).toEqual(["chain", "draw", "theta_dim_0"]);
    expect(post.get("theta")!.shape).toEqual([CHAINS, DRAWS, 8]);
    expect(entry(post.get("theta")!, 2)).toEqual(flat(posterior, "theta.3"));
    // Dims are coordinate variables: 0-based integer coords.
    expect(post.get("theta_dim_0")!.values).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(post.get("chain")!.values).toEqual([0, 1]);
    const stats = file.get("sample_stats")!;
    expect([...stats.keys()].filter((k) => k !== "chain" && k !== "draw")).toEqual(["lp", "acceptance_rate", "step_size", "tree_depth", "n_steps", "diverging", "energy"]);
    expect(stats.get("lp")!.values).toEqual(flat(posterior, "lp__"));
    expect(stats.get("n_steps")!.values).toEqual(flat(posterior, "n_leapfrog__"));
    expect(stats.get("diverging")!.values).toEqual(flat(posterior, "divergent__"));
    expect(entry(file.get("log_likelihood")!.get("log_lik")!, 7)).toEqual(flat(posterior, "log_lik.8"));
    expect(file.get("log_likelihood")!.get("log_lik")!.dims).toEqual(["chain", "draw", "log_lik_dim_0"]);
    expect(entry(file.get("posterior_predictive")!.get("y_rep")!, 0)).toEqual(flat(posterior, "y_rep.1"));
    expect(file.get("prior")!.get("tau")!.values).toEqual(flat(prior, "tau"));
    expect(entry(file.get("prior_predictive")!.get("y_rep")!, 4)).toEqual(flat(prior, "y_rep.5"));
    const observed = file.get("observed_data")!;
    expect(observed.get("y")!.values).toEqual([28, 8, -3, 7, -1, 1, 18, 12]);
    expect(observed.get("y")!.dims).toEqual(["y_dim_0"]);
    expect(observed.get("J")!.values).toEqual([8]);
  });

  it("a run with --save-warmup also gets ArviZ's warmup groups, holding the warmup rows of the CSVs", async () => {
    const out = join(dir, "warm");
    const fit = await runCli(["sample", ...EIGHT, "--backend", "cpu", "--chains", "2", "--warmup", "30", "--draws", "20", "--save-warmup", "--seed", "3", "--quiet", "--output", out]);
    expect(fit.code, fit.stderr).toBe(0);
    const r = await runCli(["export", out, "-o", join(dir, "warm.nc"), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const file = await readNetcdf(join(dir, "warm.nc"));
    expect([...file.keys()]).toEqual(["posterior", "sample_stats", "warmup_posterior", "warmup_sample_stats", "observed_data"]);
    const csv = [1, 2].map((c) => readCsv(join(out, `chain-${c}.csv`)));
    const mu = csv[0]!.columns.indexOf("mu");
    expect(file.get("warmup_posterior")!.get("mu")!.shape).toEqual([2, 30]);
    expect(file.get("warmup_posterior")!.get("mu")!.values).toEqual(csv.flatMap((f) => Array.from(f.warmupDraws[mu]!)));
    expect(file.get("posterior")!.get("mu")!.values).toEqual(csv.flatMap((f) => Array.from(f.draws[mu]!)));
  });

  it("a directory that is not a prior run given as --prior, and a path that cannot be written, are usage errors of one line", async () => {
    const notPrior = await runCli(["export", join(dir, "fit"), "--prior", join(dir, "fit"), "-o", join(dir, "x.nc")]);
    expect(notPrior.code).toBe(2);
    expect(notPrior.stderr).toMatch(/^ppl: --prior '.*fit' is not the output of `ppl sample --prior`; give the directory of a prior run\n$/);
    const noDir = await runCli(["export", join(dir, "fit"), "-o", join(dir, "missing", "x.nc")]);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(/^ppl: cannot write '.*x\.nc': .*; choose another path with -o\n$/);
  });
});

// The Python with xarray and its netCDF4 engine, if the machine has one.
function pythonWithXarray(): string | undefined {
  for (const py of ["python3", "/usr/bin/python3"]) {
    const r = spawnSync(py, ["-c", "import xarray, netCDF4"], { encoding: "utf8" });
    if (r.status === 0) return py;
  }
  return undefined;
}
const python = pythonWithXarray();

describe.runIf(python !== undefined)("ppl export, read by Python's xarray", () => {
  it("xarray.open_dataset(f, group=…) gives the groups, dims, coords and the CSVs' numbers", () => {
    const script = join(dir, "read.py");
    writeFileSync(
      script,
      [
        "import json, sys, xarray",
        "out = {}",
        "for g in ['posterior', 'sample_stats', 'log_likelihood', 'posterior_predictive', 'prior', 'observed_data']:",
        "    ds = xarray.open_dataset(sys.argv[1], group=g)",
        "    out[g] = {k: {'dims': list(v.dims), 'dtype': str(v.dtype), 'values': v.values.astype(float).ravel().tolist()} for k, v in ds.data_vars.items()}",
        "    out[g]['__coords'] = {k: v.values.tolist() for k, v in ds.coords.items()}",
        "print(json.dumps(out))",
      ].join("\n"),
    );
    const r = spawnSync(python!, [script, nc], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    type Var = { dims: string[]; dtype: string; values: number[] };
    const got = JSON.parse(r.stdout) as Record<string, Record<string, Var> & { __coords: Record<string, number[]> }>;
    expect(got["posterior"]!["theta"]!.dims).toEqual(["chain", "draw", "theta_dim_0"]);
    expect(got["posterior"]!.__coords["theta_dim_0"]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(got["posterior"]!.__coords["draw"]).toEqual(Array.from({ length: DRAWS }, (_, i) => i));
    expect(got["posterior"]!["mu"]!.values).toEqual(flat(posterior, "mu"));
    expect(entry({ shape: [CHAINS, DRAWS, 8], values: got["posterior"]!["theta"]!.values }, 5)).toEqual(flat(posterior, "theta.6"));
    expect(got["sample_stats"]!["diverging"]!.dtype).toBe("bool");
    expect(got["sample_stats"]!["tree_depth"]!.values).toEqual(flat(posterior, "treedepth__"));
    expect(got["sample_stats"]!["energy"]!.values).toEqual(flat(posterior, "energy__"));
    expect(got["log_likelihood"]!["log_lik"]!.dims).toEqual(["chain", "draw", "log_lik_dim_0"]);
    expect(got["posterior_predictive"]!["y_rep"]!.dims).toEqual(["chain", "draw", "y_rep_dim_0"]);
    expect(got["prior"]!["mu"]!.values).toEqual(flat(prior, "mu"));
    expect(got["observed_data"]!["sigma"]!.values).toEqual([15, 10, 16, 11, 9, 11, 10, 18]);
  });
});

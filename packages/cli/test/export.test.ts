// `ppl export DIR -o run.nc`: a run (with --log-lik and --predictive) and a prior run of eight
// schools as ArviZ's InferenceData in netCDF4. Read back always with h5wasm (groups, dims from the
// attached dimension scales, values equal to the CSV columns), and with Python's xarray where it
// is importable (python3-xarray and python3-netcdf4): the names, dims, dtypes and coords that
// arviz.from_netcdf, plot_ppc and loo_pit rely on.
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, readNetcdf, type ChainDraws } from "@ppl/ppl";
import { PPL_INDEX, readCsv, runCli, tempDir, type CliResult } from "./helpers.ts";

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
    expect(exported.stderr).toMatch(
      /^wrote run\.nc: posterior \(4\), posterior_predictive \(1\), log_likelihood \(1\), sample_stats \(7\), prior \(4\), prior_predictive \(1\), observed_data \(1\), constant_data \(2\); open it with arviz\.from_netcdf/m,
    );
    const file = await readNetcdf(nc);
    expect([...file.keys()]).toEqual(["posterior", "posterior_predictive", "log_likelihood", "sample_stats", "prior", "prior_predictive", "observed_data", "constant_data"]);
    const post = file.get("posterior")!;
    expect(post.get("mu")!.dims).toEqual(["chain", "draw"]);
    expect(post.get("mu")!.values).toEqual(flat(posterior, "mu"));
    expect(post.get("theta")!.dims).toEqual(["chain", "draw", "theta_dim_0"]);
    expect(post.get("theta")!.shape).toEqual([CHAINS, DRAWS, 8]);
    expect(entry(post.get("theta")!, 2)).toEqual(flat(posterior, "theta.3"));
    // Dims are coordinate variables: 0-based int64 coords, as numpy gives ArviZ.
    expect(post.get("theta_dim_0")!.values).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(post.get("chain")!.values).toEqual([0, 1]);
    expect(post.get("chain")!.dtype).toBe("<q");
    const stats = file.get("sample_stats")!;
    expect([...stats.keys()].filter((k) => k !== "chain" && k !== "draw")).toEqual(["lp", "acceptance_rate", "step_size", "tree_depth", "n_steps", "diverging", "energy"]);
    expect(stats.get("lp")!.values).toEqual(flat(posterior, "lp__"));
    expect(stats.get("n_steps")!.values).toEqual(flat(posterior, "n_leapfrog__"));
    expect(stats.get("n_steps")!.dtype).toBe("<q");
    expect(stats.get("diverging")!.values).toEqual(flat(posterior, "divergent__"));
    // The observation, its predictive draws and its log-likelihood share the observed variable's name and dims.
    expect(entry(file.get("log_likelihood")!.get("y")!, 7)).toEqual(flat(posterior, "log_lik.8"));
    expect(file.get("log_likelihood")!.get("y")!.dims).toEqual(["chain", "draw", "y_dim_0"]);
    expect(entry(file.get("posterior_predictive")!.get("y")!, 0)).toEqual(flat(posterior, "y_rep.1"));
    expect(file.get("posterior_predictive")!.get("y")!.dims).toEqual(["chain", "draw", "y_dim_0"]);
    expect(file.get("prior")!.get("tau")!.values).toEqual(flat(prior, "tau"));
    expect(entry(file.get("prior_predictive")!.get("y")!, 4)).toEqual(flat(prior, "y_rep.5"));
    const observed = file.get("observed_data")!;
    expect(observed.get("y")!.values).toEqual([28, 8, -3, 7, -1, 1, 18, 12]);
    expect(observed.get("y")!.dims).toEqual(["y_dim_0"]);
    // y is declared data.vector: reals, though its JSON values are whole numbers.
    expect(observed.get("y")!.dtype).toBe("<d");
    const constant = file.get("constant_data")!;
    expect([...constant.keys()].filter((k) => !k.endsWith("_dim_0"))).toEqual(["J", "sigma"]);
    expect(constant.get("J")!).toMatchObject({ values: [8], shape: [], dtype: "<q" });
    expect(constant.get("sigma")!).toMatchObject({ values: [15, 10, 16, 11, 9, 11, 10, 18], dims: ["sigma_dim_0"], dtype: "<d" });
    // The schema's attributes on every group.
    for (const g of file.keys()) {
      expect(file.attrs.get(g)).toMatchObject({ inference_library: "ppl", model: "eight_schools_noncentered" });
      expect(Number.isNaN(Date.parse(file.attrs.get(g)!["created_at"]!))).toBe(false);
      expect(file.attrs.get(g)!["inference_library_version"]).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  it("a run with --save-warmup also gets ArviZ's warmup groups, holding the warmup rows of the CSVs", async () => {
    const out = join(dir, "warm");
    const fit = await runCli(["sample", ...EIGHT, "--backend", "cpu", "--chains", "2", "--warmup", "30", "--draws", "20", "--save-warmup", "--seed", "3", "--quiet", "--output", out]);
    expect(fit.code, fit.stderr).toBe(0);
    const r = await runCli(["export", out, "-o", join(dir, "warm.nc"), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const file = await readNetcdf(join(dir, "warm.nc"));
    expect([...file.keys()]).toEqual(["posterior", "sample_stats", "warmup_posterior", "warmup_sample_stats", "observed_data", "constant_data"]);
    const csv = [1, 2].map((c) => readCsv(join(out, `chain-${c}.csv`)));
    const mu = csv[0]!.columns.indexOf("mu");
    expect(file.get("warmup_posterior")!.get("mu")!.shape).toEqual([2, 30]);
    expect(file.get("warmup_posterior")!.get("mu")!.values).toEqual(csv.flatMap((f) => Array.from(f.warmupDraws[mu]!)));
    expect(file.get("posterior")!.get("mu")!.values).toEqual(csv.flatMap((f) => Array.from(f.draws[mu]!)));
  });

  it("a logistic fit: the integer observation y stays int64 in observed_data and posterior_predictive; N, K and the matrix X go to constant_data", async () => {
    const out = join(dir, "logit");
    const fit = await runCli(["sample", "examples/logistic_regression.ts", "--data", "examples/logistic_regression.json", "--backend", "cpu", "--chains", "2", "--warmup", "60", "--draws", "10", "--seed", "5", "--quiet", "--log-lik", "--predictive", "--output", out]);
    expect(fit.code, fit.stderr).toBe(0);
    const r = await runCli(["export", out, "-o", join(dir, "logit.nc"), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const file = await readNetcdf(join(dir, "logit.nc"));
    const csv = collectChains([1, 2].map((c) => readCsv(join(out, `chain-${c}.csv`))));
    const y = file.get("observed_data")!.get("y")!;
    expect(y).toMatchObject({ dims: ["y_dim_0"], shape: [200], dtype: "<q" });
    expect([...file.get("observed_data")!.keys()]).toEqual(["y_dim_0", "y"]);
    const pp = file.get("posterior_predictive")!.get("y")!;
    expect(pp).toMatchObject({ dims: ["chain", "draw", "y_dim_0"], shape: [2, 10, 200], dtype: "<q" });
    expect(entry(pp, 199)).toEqual(flat(csv, "y_rep.200"));
    expect(entry(file.get("log_likelihood")!.get("y")!, 37)).toEqual(flat(csv, "log_lik.38"));
    const constant = file.get("constant_data")!;
    expect(constant.get("N")).toMatchObject({ values: [200], dtype: "<q" });
    expect(constant.get("K")).toMatchObject({ values: [3], dtype: "<q" });
    expect(constant.get("X")).toMatchObject({ dims: ["X_dim_0", "X_dim_1"], shape: [200, 3], dtype: "<d" });
  });

  it("a model with three observe terms: log_lik is cut into one variable per observed variable, an observed expression is named obsK and kept out of observed_data", async () => {
    const model = join(dir, "three.ts");
    writeFileSync(
      model,
      [
        `import { data, model, normal, poisson } from "${PPL_INDEX}";`,
        "export default model({",
        '  name: "three_terms",',
        '  data: { N: data.int(), y: data.vector("N"), k: data.intVector("N", { lower: 0 }), x: data.vector("N") },',
        "  build(m, d) {",
        '    const mu = m.param("mu", normal(0, 1));',
        "    m.observe(d.y, normal(mu, 1));",
        "    m.observe(d.k, poisson(mu.exp()));",
        "    m.observe(d.x.mul(2), normal(mu, 1));",
        "  },",
        "});",
      ].join("\n"),
    );
    const dataFile = join(dir, "three.json");
    writeFileSync(dataFile, JSON.stringify({ N: 3, y: [0.5, -1, 2], k: [1, 0, 3], x: [0.1, 0.2, 0.3] }));
    const out = join(dir, "three");
    const fit = await runCli(["sample", model, "--data", dataFile, "--backend", "cpu", "--chains", "1", "--warmup", "50", "--draws", "5", "--seed", "2", "--quiet", "--log-lik", "--predictive", "--output", out]);
    expect(fit.code, fit.stderr).toBe(0);
    const csv = collectChains([readCsv(join(out, "chain-1.csv"))]);
    expect(readCsv(join(out, "chain-1.csv")).config).toMatchObject({ observed: "y[3] k[3] obs3~[3]", int_data: "N,k" });
    const r = await runCli(["export", out, "-o", join(dir, "three.nc"), "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const file = await readNetcdf(join(dir, "three.nc"));
    const names = (g: string): string[] => [...file.get(g)!.keys()].filter((k) => !/_dim_\d+$|^chain$|^draw$/.test(k));
    expect(names("observed_data")).toEqual(["y", "k"]);
    expect(names("constant_data")).toEqual(["N", "x"]);
    expect(names("posterior_predictive")).toEqual(["y", "k", "obs3"]);
    expect(names("log_likelihood")).toEqual(["y", "k", "obs3"]);
    const ll = file.get("log_likelihood")!;
    expect(entry(ll.get("y")!, 2)).toEqual(flat(csv, "log_lik.3"));
    expect(entry(ll.get("k")!, 0)).toEqual(flat(csv, "log_lik.4"));
    expect(entry(ll.get("obs3")!, 2)).toEqual(flat(csv, "log_lik.9"));
    expect(file.get("observed_data")!.get("k")).toMatchObject({ values: [1, 0, 3], dtype: "<q" });
    expect(file.get("posterior_predictive")!.get("k")!.dtype).toBe("<q");
    expect(file.get("posterior_predictive")!.get("y")!.dtype).toBe("<d");
  });

  it("files whose header does not record the data layout (CmdStan's): y_rep still becomes y, log_lik is named after it, whole-number data are int64 as numpy reads JSON", async () => {
    const out = join(dir, "bare");
    mkdirSync(out);
    for (const c of [1, 2]) {
      const text = readFileSync(join(dir, "fit", `chain-${c}.csv`), "utf8");
      writeFileSync(join(out, `chain-${c}.csv`), text.replace(/^# (observed|int_data) = .*\n/gm, ""));
    }
    const r = await runCli(["export", out, "-o", join(dir, "bare.nc"), "--data", "examples/eight_schools.json", "--quiet"]);
    expect(r.code, r.stderr).toBe(0);
    const file = await readNetcdf(join(dir, "bare.nc"));
    expect(entry(file.get("posterior_predictive")!.get("y")!, 3)).toEqual(flat(posterior, "y_rep.4"));
    expect(entry(file.get("log_likelihood")!.get("y")!, 3)).toEqual(flat(posterior, "log_lik.4"));
    expect(file.get("observed_data")!.get("y")!.dtype).toBe("<q");
    expect(file.get("constant_data")!.get("J")!.dtype).toBe("<q");
    expect(file.get("constant_data")!.get("sigma")!.dtype).toBe("<q");
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
        "import json, sys, netCDF4, xarray",
        "out = {}",
        // The groups as arviz.from_netcdf lists them.
        "groups = list(netCDF4.Dataset(sys.argv[1]).groups)",
        "out['__groups'] = groups",
        "for g in groups:",
        "    ds = xarray.open_dataset(sys.argv[1], group=g)",
        "    out[g] = {k: {'dims': list(v.dims), 'dtype': str(v.dtype), 'values': v.values.astype(float).ravel().tolist()} for k, v in ds.data_vars.items()}",
        "    out[g]['__coords'] = {k: v.values.tolist() for k, v in ds.coords.items()}",
        "    out[g]['__coord_dtypes'] = sorted({str(v.dtype) for v in ds.coords.values()})",
        "    out[g]['__attrs'] = sorted(ds.attrs)",
        "print(json.dumps(out))",
      ].join("\n"),
    );
    const r = spawnSync(python!, [script, nc], { encoding: "utf8" });
    expect(r.status, r.stderr).toBe(0);
    type Var = { dims: string[]; dtype: string; values: number[] };
    type Group = Record<string, Var> & { __coords: Record<string, number[]>; __coord_dtypes: string[]; __attrs: string[] };
    const got = JSON.parse(r.stdout) as Record<string, Group> & { __groups: string[] };
    expect(got.__groups).toEqual(["posterior", "posterior_predictive", "log_likelihood", "sample_stats", "prior", "prior_predictive", "observed_data", "constant_data"]);
    for (const g of got.__groups) {
      expect(got[g]!.__coord_dtypes).toEqual(["int64"]);
      expect(got[g]!.__attrs).toEqual(expect.arrayContaining(["created_at", "inference_library", "inference_library_version"]));
    }
    expect(got["posterior"]!["theta"]!.dims).toEqual(["chain", "draw", "theta_dim_0"]);
    expect(got["posterior"]!.__coords["theta_dim_0"]).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(got["posterior"]!.__coords["draw"]).toEqual(Array.from({ length: DRAWS }, (_, i) => i));
    expect(got["posterior"]!["mu"]!.values).toEqual(flat(posterior, "mu"));
    expect(entry({ shape: [CHAINS, DRAWS, 8], values: got["posterior"]!["theta"]!.values }, 5)).toEqual(flat(posterior, "theta.6"));
    expect(got["sample_stats"]!["diverging"]!.dtype).toBe("bool");
    expect(got["sample_stats"]!["tree_depth"]!.dtype).toBe("int64");
    expect(got["sample_stats"]!["tree_depth"]!.values).toEqual(flat(posterior, "treedepth__"));
    expect(got["sample_stats"]!["energy"]!.values).toEqual(flat(posterior, "energy__"));
    // What az.plot_ppc(idata) and az.loo_pit(idata, y="y") look up: every observed_data variable
    // under the same name, with the same trailing dims and coords, in posterior_predictive and
    // log_likelihood (ArviZ itself is not a dependency; this is its lookup, done by hand).
    expect(Object.keys(got["observed_data"]!).filter((k) => !k.startsWith("__"))).toEqual(["y"]);
    expect(got["observed_data"]!["y"]!).toMatchObject({ dims: ["y_dim_0"], dtype: "float64", values: [28, 8, -3, 7, -1, 1, 18, 12] });
    for (const g of ["posterior_predictive", "log_likelihood", "prior_predictive"]) {
      expect(got[g]!["y"]!.dims).toEqual(["chain", "draw", "y_dim_0"]);
      expect(got[g]!.__coords["y_dim_0"]).toEqual(got["observed_data"]!.__coords["y_dim_0"]);
    }
    expect(entry({ shape: [CHAINS, DRAWS, 8], values: got["posterior_predictive"]!["y"]!.values }, 6)).toEqual(flat(posterior, "y_rep.7"));
    expect(entry({ shape: [CHAINS, DRAWS, 8], values: got["log_likelihood"]!["y"]!.values }, 6)).toEqual(flat(posterior, "log_lik.7"));
    expect(got["prior"]!["mu"]!.values).toEqual(flat(prior, "mu"));
    expect(got["constant_data"]!["J"]!).toMatchObject({ dims: [], dtype: "int64", values: [8] });
    expect(got["constant_data"]!["sigma"]!.values).toEqual([15, 10, 16, 11, 9, 11, 10, 18]);
  });
});

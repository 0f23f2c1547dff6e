// The data a run saw, checked where runs meet: `ppl loo --compare` refuses runs fitted to other
// observations (or, with --force, warns loudly), comparing the observed values' hash so that models
// of the same observations with other data files compare; `ppl generate` refuses data other than
// the fit's (unless --force); and `ppl summary DIR` reads only the chain files of one run, naming
// every CSV file it skipped.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readCsv, ROOT, runCli, tempDir } from "./helpers.ts";

const MODEL = "examples/eight_schools.ts";
const DATA = JSON.parse(readFileSync(join(ROOT, "examples/eight_schools.json"), "utf8")) as { J: number; y: number[]; sigma: number[] };
const SHORT = ["--backend", "cpu", "--chains", "2", "--warmup", "40", "--draws", "20", "--seed", "8", "--log-lik", "--quiet"];

let dir: string;
// Fits of eight schools: to its data, to other y of the same length, and to the same y with other sigma.
const fits = { same: "", otherY: "", otherSigma: "" };
const files = { same: "", otherY: "", otherSigma: "" };

beforeAll(async () => {
  dir = tempDir("ppl-data-checks-");
  files.same = join(dir, "same.json");
  files.otherY = join(dir, "other-y.json");
  files.otherSigma = join(dir, "other-sigma.json");
  writeFileSync(files.same, JSON.stringify(DATA));
  writeFileSync(files.otherY, JSON.stringify({ ...DATA, y: DATA.y.map((v) => v + 1) }));
  writeFileSync(files.otherSigma, JSON.stringify({ ...DATA, sigma: DATA.sigma.map((v) => v * 2) }));
  for (const k of Object.keys(fits) as (keyof typeof fits)[]) fits[k] = join(dir, k);
  const runs = await Promise.all((Object.keys(fits) as (keyof typeof fits)[]).map((k) => runCli(["sample", MODEL, "--data", files[k], ...SHORT, "--output", fits[k]])));
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
}, 180_000);

describe("ppl loo --compare", () => {
  it("refuses runs fitted to other observations, naming both and the hashes; --force compares them with a warning", async () => {
    const r = await runCli(["loo", "--compare", fits.same, fits.otherY]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^ppl: '.*same' and '.*otherY' were fitted to different observed data \(observed_hash sha256:[0-9a-f]{12}… and sha256:[0-9a-f]{12}…\); loo --compare compares models of the same observations \(--force compares them anyway\)\n$/,
    );
    const forced = await runCli(["loo", "--compare", "--force", fits.same, fits.otherY]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/^WARNING: '.*same' and '.*otherY' were fitted to different observed data .*; compared anyway \(--force\): the elpd differences below mean nothing unless the observations are the same$/m);
    expect(forced.stdout).toMatch(/^ +elpd_diff +se_diff/);
  });

  it("compares runs of the same observations whose data files differ elsewhere (other sigma), silently", async () => {
    const r = await runCli(["loo", "--compare", fits.same, fits.otherSigma]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(/WARNING|not checked/);
    expect(readCsv(join(fits.same, "chain-1.csv")).config["data_hash"]).not.toBe(readCsv(join(fits.otherSigma, "chain-1.csv")).config["data_hash"]);
  });

  it("a run that records no hash (CmdStan's files) is compared with a note that the data are not checked", async () => {
    const bare = join(dir, "bare");
    mkdirSync(bare);
    for (const c of [1, 2]) {
      const text = readFileSync(join(fits.otherY, `chain-${c}.csv`), "utf8");
      writeFileSync(join(bare, `chain-${c}.csv`), text.replace(/^# (data_hash|observed_hash) = .*\n/gm, ""));
    }
    const r = await runCli(["loo", "--compare", fits.same, bare]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^note: '.*bare' records no data hash \(not written by ppl sample\); that '.*same' and '.*bare' were fitted to the same data is not checked$/m);
  });
});

describe("ppl generate", () => {
  it("refuses data other than the fit's, and with --force generates with them, warning and recording their hash", async () => {
    const out = join(dir, "gen");
    const r = await runCli(["generate", MODEL, "--data", files.otherY, "--fit", fits.same, "--output", out, "--quiet"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^ppl: --data '.*other-y\.json' is not the data the fit '.*same' sampled \(data_hash sha256:[0-9a-f]{12}… in its header, from '.*same\.json'; sha256:[0-9a-f]{12}… given\); give the fit's data file, or --force to generate with these data \(predictions for new data\)\n$/,
    );
    const forced = await runCli(["generate", MODEL, "--data", files.otherY, "--fit", fits.same, "--output", out, "--quiet", "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toMatch(/^WARNING: --data '.*other-y\.json' is not the data the fit .*; generating with these data anyway \(--force\)$/m);
    expect(readCsv(join(out, "chain-1.csv")).config["data_hash"]).toBe(readCsv(join(fits.otherY, "chain-1.csv")).config["data_hash"]);
    const same = await runCli(["generate", MODEL, "--data", files.same, "--fit", fits.same, "--output", join(dir, "gen-same"), "--quiet"]);
    expect(same.code, same.stderr).toBe(0);
    expect(same.stderr).toBe("");
  });
});

describe("ppl summary DIR", () => {
  it("reads the chain-N.csv files of the run and names the other CSV files it skipped", async () => {
    const d = join(dir, "stray");
    mkdirSync(d);
    for (const c of [1, 2]) copyFileSync(join(fits.same, `chain-${c}.csv`), join(d, `chain-${c}.csv`));
    writeFileSync(join(d, "school-names.csv"), "school,name\n1,A\n");
    // Even a Stan CSV file of another run: only chain-N.csv files are chains of this one.
    copyFileSync(join(fits.otherY, "chain-1.csv"), join(d, "old-chain.csv"));
    const r = await runCli(["summary", d]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`note: skipped '${join(d, "old-chain.csv")}': not a chain-N.csv file of the run\nnote: skipped '${join(d, "school-names.csv")}': not a chain-N.csv file of the run\n`);
    expect(r.stdout).toMatch(/^Sampler diagnostics \(2 chains × 20 draws\):$/m);
  });

  it("in a directory of CmdStan's files (no chain-N.csv), skips a CSV file that holds no chain's draws, naming it and why", async () => {
    const d = join(dir, "cmdstan");
    mkdirSync(d);
    for (const c of [1, 2]) copyFileSync(join(fits.same, `chain-${c}.csv`), join(d, `output_${c}.csv`));
    writeFileSync(join(d, "notes.csv"), "a,b\n1,2\n");
    const r = await runCli(["summary", d]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`^note: skipped '${join(d, "notes.csv").replace(/[.]/g, "\\.")}': no lp__ column, so not a chain.s draws\\n$`));
    expect(r.stdout).toMatch(/^Sampler diagnostics \(2 chains × 20 draws\):$/m);
    // Only the chains of one run: every file left must agree on the run's settings.
    const other = join(dir, "cmdstan-two-runs");
    mkdirSync(other);
    copyFileSync(join(fits.same, "chain-1.csv"), join(other, "output_1.csv"));
    writeFileSync(join(other, "output_2.csv"), readFileSync(join(fits.same, "chain-2.csv"), "utf8").replace(/^(#\s+seed = )8$/m, "$19"));
    const two = await runCli(["summary", other]);
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^ppl: the files are not chains of one run: seed is 8 in '.*output_1\.csv' but 9 in '.*output_2\.csv'/);
  });
});

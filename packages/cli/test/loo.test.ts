// `ppl sample --log-lik` and `ppl loo`, run as child processes: the log_lik columns of eight
// schools against the normal density written out, PSIS-LOO of the run against the library, the
// comparison of two models, R's loo_compare fixture through the command, and the errors.
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { collectChains, loo, looCompare, SAMPLER_COLUMNS, stringSink, writeStanCsv, type StanCsv } from "@ppl/ppl";
import { hasStackTrace, PPL_INDEX, readCsv, runCli, ROOT, tempDir, type CliResult } from "./helpers.ts";

const CHAINS = 2;
const DRAWS = 100;
const RUN = ["--chains", String(CHAINS), "--warmup", "100", "--draws", String(DRAWS), "--backend", "cpu", "--quiet"];
const DATA = JSON.parse(readFileSync(join(ROOT, "examples/eight_schools.json"), "utf8")) as { J: number; y: number[]; sigma: number[] };
const KEYS = ["elpd_loo", "se_elpd_loo", "p_loo", "se_p_loo", "looic", "se_looic"] as const;

const lnorm = (x: number, m: number, s: number) => -0.5 * ((x - m) / s) ** 2 - Math.log(s) - 0.5 * Math.log(2 * Math.PI);

let tmp: string;
let eight: string;
let pooled: string;
let sampled: CliResult;
let files: StanCsv[];

/** Draws [observation][chain][draw] of the log_lik columns of files read back. */
function logLikOf(fs: StanCsv[]): Float64Array[][] {
  const { parameters } = collectChains(fs);
  return Array.from({ length: DATA.J }, (_, i) => parameters[`log_lik[${i + 1}]`]!);
}

const readChains = (dir: string): StanCsv[] => Array.from({ length: CHAINS }, (_, c) => readCsv(join(dir, `chain-${c + 1}.csv`)));

beforeAll(async () => {
  tmp = tempDir("ppl-loo-");
  eight = join(tmp, "eight");
  pooled = join(tmp, "pooled");
  // Complete pooling of the same data: every school has the same effect.
  const pooledModel = join(tmp, "pooled.ts");
  writeFileSync(
    pooledModel,
    `import { model, data, normal } from ${JSON.stringify(PPL_INDEX)};\n` +
      `export default model({ name: "pooled", data: { J: data.int({ lower: 1 }), y: data.vector("J"), sigma: data.vector("J", { lower: 0 }) },\n` +
      `  build(m, d) { const mu = m.param("mu", normal(0, 5)); m.observe(d.y, normal(mu, d.sigma)); } });\n`,
  );
  const [a, b] = await Promise.all([
    runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", ...RUN, "--seed", "21", "--log-lik", "--output", eight]),
    runCli(["sample", pooledModel, "--data", "examples/eight_schools.json", ...RUN, "--seed", "22", "--log-lik", "--output", pooled]),
  ]);
  sampled = a;
  expect(b.code, b.stderr).toBe(0);
  files = readChains(eight);
});

describe("ppl sample --log-lik", () => {
  it("writes log_lik.1 … log_lik.8 after the parameters and deterministics", () => {
    expect(sampled.code, sampled.stderr).toBe(0);
    const params = ["mu", "tau", ...Array.from({ length: 8 }, (_, i) => `theta_trans.${i + 1}`), ...Array.from({ length: 8 }, (_, i) => `theta.${i + 1}`)];
    const logLik = Array.from({ length: 8 }, (_, i) => `log_lik.${i + 1}`);
    for (const f of files) {
      expect(f.columns).toEqual([...SAMPLER_COLUMNS, ...params, ...logLik]);
      expect(f.draws[0]!.length).toBe(DRAWS);
    }
  });

  it("each log_lik[i] is the normal log density of y[i] given the draw's theta[i] and sigma[i]", () => {
    for (const f of files) {
      const col = (name: string) => f.draws[f.columns.indexOf(name)]!;
      for (let i = 0; i < DATA.J; i++) {
        const ll = col(`log_lik.${i + 1}`);
        const theta = col(`theta.${i + 1}`);
        for (let s = 0; s < DRAWS; s++) expect(ll[s]).toBeCloseTo(lnorm(DATA.y[i]!, theta[s]!, DATA.sigma[i]!), 10);
      }
    }
  });

  it("a model that observes nothing is a model error saying to drop --log-lik", async () => {
    const p = join(tmp, "prior.ts");
    writeFileSync(p, `import { model, normal } from ${JSON.stringify(PPL_INDEX)};\nexport default model({ name: "prior", data: {}, build(m) { m.param("mu", normal(0, 1)); } });\n`);
    const r = await runCli(["sample", p, "--chains", "1", "--warmup", "5", "--draws", "5", "--quiet", "--backend", "cpu", "--log-lik", "--output", join(tmp, "prior")]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(/^ppl: model 'prior' observes nothing .*--log-lik needs at least one m\.observe.*drop --log-lik$/m);
  });
});

describe("ppl loo", () => {
  it("--json prints loo's estimates by name, finite, equal to the library's loo of the columns", async () => {
    const r = await runCli(["loo", eight, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const json = JSON.parse(r.stdout) as Record<string, unknown>;
    for (const k of [...KEYS, "pareto_k", "pareto_k_counts", "warnings"]) expect(json).toHaveProperty(k);
    const want = loo(logLikOf(files));
    for (const k of KEYS) {
      expect(Number.isFinite(json[k])).toBe(true);
      expect(json[k]).toBe(want[k]);
    }
    expect(json["looic"]).toBeCloseTo(-2 * (json["elpd_loo"] as number), 10);
    const k = json["pareto_k"] as number[];
    expect(k).toHaveLength(8);
    for (const v of k) expect(Number.isFinite(v)).toBe(true);
    const counts = json["pareto_k_counts"] as Record<string, number>;
    expect(counts["good"]! + counts["ok"]! + counts["bad"]! + counts["very_bad"]!).toBe(8);
  });

  it("prints the estimates and the count in each Pareto k category", async () => {
    const r = await runCli(["loo", eight]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Computed from 200 by 8 log-likelihood matrix \(2 chains × 100 draws\)/);
    expect(r.stdout).toMatch(/^elpd_loo +-?\d+\.\d +\d+\.\d$/m);
    expect(r.stdout).toMatch(/^p_loo +-?\d+\.\d +\d+\.\d$/m);
    expect(r.stdout).toMatch(/^looic +-?\d+\.\d +\d+\.\d$/m);
    for (const row of [/^\(-Inf, 0\.5\] +\(good\) +\d+ /m, /^\(0\.5, 0\.7\] +\(ok\) +\d+ /m, /^\(0\.7, 1\] +\(bad\) +\d+ /m, /^\(1, Inf\) +\(very bad\) +\d+ /m]) {
      expect(r.stdout).toMatch(row);
    }
  });

  it("--compare orders the runs best first, as the library's looCompare of the same columns", async () => {
    const r = await runCli(["loo", "--compare", pooled, eight, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { model: string; elpd_diff: number; se_diff: number }[];
    const want = looCompare([
      { name: pooled, loo: loo(logLikOf(readChains(pooled))) },
      { name: eight, loo: loo(logLikOf(files)) },
    ]);
    expect(rows.map((x) => x.model)).toEqual(want.map((x) => x.model));
    expect(rows[0]!.elpd_diff).toBe(0);
    expect(rows[0]!.se_diff).toBe(0);
    expect(rows[1]!.elpd_diff).toBeLessThanOrEqual(0);
    rows.forEach((x, i) => {
      expect(x.elpd_diff).toBe(want[i]!.elpd_diff);
      expect(x.se_diff).toBe(want[i]!.se_diff);
    });
    const text = await runCli(["loo", "--compare", pooled, eight]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split("\n")[0]!.trim().split(/\s+/)).toEqual(["elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo", "p_loo", "looic"]);
  });

  it("--compare on R's loo_compare fixture, written as Stan CSV, gives R's elpd_diff and se_diff to 1e-6", async () => {
    interface Case { case: string; draws: number; chains: number; observations: number; log_lik: number[] }
    const f = JSON.parse(readFileSync(join(ROOT, "packages/ppl/test/fixtures/loo/loo-compare.json"), "utf8")) as {
      models: Case[];
      compare: { model: string; elpd_diff: number; se_diff: number; elpd_loo: number }[];
    };
    const dirs = f.models.map((m) => {
      const dir = join(tmp, `r-${m.case}`);
      mkdirSync(dir, { recursive: true });
      const names = Array.from({ length: m.observations }, (_, i) => `log_lik[${i + 1}]`);
      for (let c = 0; c < m.chains; c++) {
        const sink = stringSink();
        const w = writeStanCsv(sink, { config: [], parameters: names });
        for (let s = 0; s < m.draws; s++) {
          // R's order: draw fastest, then chain, then observation; the sampler columns are not read by loo.
          const row = [0, 1, 0.5, 1, 1, 0, 0, ...names.map((_, i) => m.log_lik[(i * m.chains + c) * m.draws + s]!)];
          w.writeDraw(row);
        }
        w.close();
        writeFileSync(join(dir, `chain-${c + 1}.csv`), sink.text());
      }
      return dir;
    });
    const r = await runCli(["loo", "--compare", ...dirs, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const rows = JSON.parse(r.stdout) as { model: string; elpd_diff: number; se_diff: number; elpd_loo: number }[];
    expect(rows.map((x) => x.model)).toEqual(f.compare.map((x) => join(tmp, `r-${x.model}`)));
    const rel = (a: number, b: number) => (b === 0 ? Math.abs(a) : Math.abs(a - b) / Math.abs(b));
    rows.forEach((x, i) => {
      for (const k of ["elpd_diff", "se_diff", "elpd_loo"] as const) expect(rel(x[k], f.compare[i]![k])).toBeLessThan(1e-6);
    });
  });

  it("errors are one line naming the fix", async () => {
    const plain = join(tmp, "plain");
    const s = await runCli(["sample", "examples/eight_schools.ts", "--data", "examples/eight_schools.json", "--chains", "1", "--warmup", "10", "--draws", "10", "--backend", "cpu", "--quiet", "--output", plain]);
    expect(s.code, s.stderr).toBe(0);
    const cases: [string[], number, RegExp][] = [
      [["loo", plain], 2, /^ppl: '.*plain' has no log_lik columns: sample with --log-lik$/],
      [["loo", "--compare", eight], 2, /^ppl: --compare needs at least two directories/],
      [["loo", eight, pooled], 2, /^ppl: give one directory \(got 2\); to compare runs, use ppl loo --compare /],
      [["loo", join(tmp, "missing")], 2, /^ppl: '.*missing' /],
    ];
    for (const [args, code, message] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(" ")).toBe(code);
      expect(r.stderr.trim().split("\n"), r.stderr).toHaveLength(1);
      expect(r.stderr.trim()).toMatch(message);
      expect(hasStackTrace(r.stderr)).toBe(false);
    }
  });
});

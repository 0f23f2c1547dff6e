/**
 * The CPU backend against Stan on this machine (issue #15): eight schools (noncentered,
 * examples/eight_schools.ts), kidiq (posteriordb kidiq-kidscore_interaction) and the N = 100k, D = 100
 * logistic regression, 4 chains × (1000 warmup + 1000 draws) on both sides, Stan's defaults
 * otherwise (adapt_delta 0.8, max depth 10, diagonal metric), the same data.
 *
 *   npx tsx bench/cpu-vs-stan.ts [--reps 3] [--case eight_schools,kidiq] [--data-dir /tmp/ppl-anchor-data]
 *
 * Ours, two ways, each seed of --reps (1001, 1002, …):
 * - eight schools and kidiq as a user runs them, `ppl sample MODEL --data DATA --seed S` (the built
 *   CLI, `pnpm build` first; default backend choice and threads: on this machine the CPU backend,
 *   chains on up to one thread per core), timed as whole processes (wall, and user + system CPU from
 *   /usr/bin/time); the sampler time is the CSVs' Elapsed Time (the run's wall time, the same in
 *   every chain's file), the ESS the smallest bulk-ESS over all parameters but lp__ (this
 *   repository's diagnostics, equal to posterior's). A second run of each seed with --save-warmup,
 *   not timed, counts the gradient evaluations (n_leapfrog__ of warm-up and sampling; the draws are
 *   the same).
 * - every case through the API in this process, `sampleAsync` with a thread per core (at most 4):
 *   the run's wall time and the CPU time of the process during it (all threads: the sampler's, its
 *   workers', the compiler's and the collector's), which a loaded machine stretches far less than
 *   wall time, against Stan's clock() times. Its ESS is over the sampled (unconstrained)
 *   coordinates. The logistic regression runs only this way (over half an hour on a shared 2 cores),
 *   once, on the float32 data that ../shared/anchors/make_data.py writes into --data-dir: as a Stan
 *   JSON data file they would be 200 MB.
 *
 * The medium cases of bench/stan-cases.ts (logistic N = 300 and N = 5000 with D = 4, ordered logistic
 * K = 5 N = 500, Weibull survival with censoring N = 300, hier N = 10k J = 200) run through the API
 * only, on Stan JSON data files that --write-data writes into --cases-dir (default
 * /tmp/ppl-stan-cases) for Stan's side to read:
 *
 *   npx tsx bench/cpu-vs-stan.ts --write-data && Rscript bench/stan/run-stan.R logistic_n300 …
 *   npx tsx bench/cpu-vs-stan.ts --case logistic_n300,logistic_n5000,ordered_logistic,weibull_survival,hier_n10k_j200
 *
 * Stan: bench/stan/results.json, written by `Rscript bench/stan/run-stan.R` (rstan 2.21 on this
 * machine; see that script), so that this bench needs no R. Stan 2.21 measures its Elapsed Time
 * with clock(), the process's CPU time; its chains ran one after another in one process, and "on 2
 * cores" is the sum of the four chains' times over 2 (two chains at a time, perfectly packed: what
 * Stan's chains in two processes would take at best).
 *
 * Prints one JSON line per case and a Markdown table.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { collectChains, compileModel, essBulk, modelDensity, readStanCsv, sampleAsync, stopSamplerThreads } from "../packages/ppl/src/index.ts";
import { loadPosterior } from "../packages/ppl/src/posteriordb/reference.ts";
import { loadModel } from "../packages/ppl/src/posteriordb/run-posterior.ts";
import type { Model } from "../packages/ppl/src/index.ts";
import eightSchools from "../examples/eight_schools.ts";
import { anchorLogistic } from "./anchor-models.ts";
import { caseDataFile, STAN_CASES } from "./stan-cases.ts";

const { values } = parseArgs({
  options: { reps: { type: "string" }, case: { type: "string" }, "data-dir": { type: "string" }, "cases-dir": { type: "string" }, "write-data": { type: "boolean" } },
});
const reps = Number(values.reps ?? 3);
const cases = (values.case ?? "eight_schools,kidiq").split(",");
const dataDir = values["data-dir"] ?? "/tmp/ppl-anchor-data";
const casesDir = values["cases-dir"] ?? "/tmp/ppl-stan-cases";
// The medium cases' data files, for Stan's side (bench/stan/run-stan.R reads them), then stop.
if (values["write-data"]) {
  for (const name of Object.keys(STAN_CASES)) console.log(caseDataFile(name, casesDir).path);
  process.exit(0);
}
const root = resolve(import.meta.dirname, "..");
const launcher = join(root, "packages/cli/bin/ppl.js");
const median = (xs: readonly number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const sum = (xs: ArrayLike<number>): number => {
  let t = 0;
  for (let i = 0; i < xs.length; i++) t += xs[i]!;
  return t;
};

/** One repetition of Stan, as bench/stan/run-stan.R records it. */
interface StanRun {
  readonly seed: number;
  readonly sampling_call_wall_s: number;
  readonly sampling_call_cpu_s?: number;
  readonly chain_warmup_s: number[];
  readonly chain_sampling_s: number[];
  readonly min_ess_bulk: number;
  readonly grad_evals: number;
}
interface StanCase {
  readonly rstan: string;
  readonly date: string;
  readonly load_average: string;
  readonly runs: StanRun[];
  readonly parallel_run: StanRun | null;
}
const stanResults = JSON.parse(readFileSync(join(root, "bench/stan/results.json"), "utf8")) as Record<string, StanCase>;

/** What one run of ours measured. */
interface OurRun {
  readonly seed: number;
  readonly samplerSeconds: number;
  readonly minEssBulk: number;
  readonly gradEvals: number;
  readonly processWall?: number;
  readonly processCpu?: number;
}

function minBulkEss(parameters: Record<string, Float64Array[]>): number {
  let min = Infinity;
  for (const draws of Object.values(parameters)) min = Math.min(min, essBulk(draws));
  return min;
}

const CLI_CASES: Record<string, { model: string; data: string }> = {
  eight_schools: { model: "examples/eight_schools.ts", data: "examples/eight_schools.json" },
  kidiq: { model: "examples/posteriordb/kidiq-kidscore_interaction.ts", data: "../shared/posteriordb/kidiq-kidscore_interaction/data.json" },
};

function runCli(name: string, seed: number): OurRun {
  const { model, data } = CLI_CASES[name]!;
  const out = mkdtempSync(join(tmpdir(), "cpu-vs-stan-"));
  const argv = ["sample", model, "--data", data, "--seed", String(seed), "--output", out, "--quiet"];
  const t0 = performance.now();
  // /usr/bin/time adds one line to stderr: the child's user and system CPU seconds.
  const p = spawnSync("/usr/bin/time", ["-f", "%U %S", process.execPath, launcher, ...argv], { cwd: root, encoding: "utf8" });
  const processWall = (performance.now() - t0) / 1000;
  if (p.status !== 0) throw new Error(`ppl ${argv.join(" ")} exited with ${p.status}: ${p.stderr}`);
  const [user, system] = p.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
  const files = readdirSync(out).filter((f) => f.endsWith(".csv")).map((f) => readStanCsv(readFileSync(join(out, f), "utf8")));
  const samplerSeconds = Math.max(...files.map((f) => f.timing?.total ?? NaN));
  const minEssBulk = minBulkEss(collectChains(files).parameters);
  rmSync(out, { recursive: true });
  // The same seed again with the warm-up draws written, for the gradient count (not timed).
  const counted = mkdtempSync(join(tmpdir(), "cpu-vs-stan-"));
  const q = spawnSync(process.execPath, [launcher, ...argv.slice(0, -3), "--output", counted, "--quiet", "--save-warmup"], { cwd: root, encoding: "utf8" });
  if (q.status !== 0) throw new Error(`ppl sample --save-warmup exited with ${q.status}: ${q.stderr}`);
  let gradEvals = 0;
  for (const f of readdirSync(counted).filter((f) => f.endsWith(".csv"))) {
    const csv = readStanCsv(readFileSync(join(counted, f), "utf8"));
    const k = csv.columns.indexOf("n_leapfrog__");
    gradEvals += sum(csv.warmupDraws[k]!) + sum(csv.draws[k]!);
  }
  rmSync(counted, { recursive: true });
  return { seed, samplerSeconds, minEssBulk, gradEvals, processWall, processCpu: user! + system! };
}

/** The sampler alone, in this process: the run's wall time and the CPU time of all its threads. */
interface ApiRun {
  readonly seed: number;
  readonly samplerSeconds: number;
  readonly samplerCpuSeconds: number;
  readonly threadsUsed: number;
  /** Over the sampled (unconstrained) coordinates: bulk-ESS is rank-based, so a log-transformed tau has tau's. */
  readonly minEssBulk: number;
  readonly gradEvals: number;
}

async function caseModel(name: string): Promise<{ model: Model; data: unknown }> {
  if (name === "eight_schools") return { model: eightSchools, data: JSON.parse(readFileSync(join(root, "examples/eight_schools.json"), "utf8")) };
  if (name === "kidiq") return { model: await loadModel("kidiq-kidscore_interaction"), data: loadPosterior("kidiq-kidscore_interaction").data };
  if (name in STAN_CASES) return { model: STAN_CASES[name]!.model, data: caseDataFile(name, casesDir).values };
  const index = JSON.parse(readFileSync(join(dataDir, "index.json"), "utf8")) as Record<string, { N: number; D: number }>;
  const { N, D } = index["logistic_n100k_d100"]!;
  const f32 = (file: string): Float32Array => {
    const b = readFileSync(join(dataDir, file));
    return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  };
  const X = f32("logistic_n100k_d100.X.f32");
  const y = f32("logistic_n100k_d100.y.f32");
  const rows: number[][] = [];
  for (let n = 0; n < N; n++) rows.push(Array.from(X.subarray(n * D, (n + 1) * D)));
  return { model: anchorLogistic, data: { N, D, X: rows, y: Array.from(y) } };
}

async function runApi(name: string, seed: number): Promise<ApiRun> {
  const { model, data } = await caseModel(name);
  const density = await modelDensity(compileModel(model, data), { backend: "cpu" });
  const cpu0 = process.cpuUsage();
  const res = await sampleAsync(density, { chains: 4, warmup: 1000, draws: 1000, seed, threads: Math.min(availableParallelism(), 4) });
  const cpu = process.cpuUsage(cpu0);
  const dim = res.dim;
  const draws = res.drawsDone;
  let minEssBulk = Infinity;
  for (let j = 0; j < dim; j++) {
    const perChain = res.draws.map((d) => {
      const out = new Float64Array(draws);
      for (let i = 0; i < draws; i++) out[i] = d[i * dim + j]!;
      return out;
    });
    minEssBulk = Math.min(minEssBulk, essBulk(perChain));
  }
  return {
    seed,
    samplerSeconds: res.timing.warmupSeconds + res.timing.samplingSeconds,
    samplerCpuSeconds: (cpu.user + cpu.system) / 1e6,
    threadsUsed: res.threads?.used ?? 1,
    minEssBulk,
    gradEvals: sum(res.gradientEvaluations),
  };
}

const rows: string[] = [];
const cpuRows: string[] = [];
for (const name of cases) {
  const ours: OurRun[] = [];
  const api: ApiRun[] = [];
  for (let r = 0; r < (name === "logistic" ? 1 : reps); r++) {
    if (name in CLI_CASES) ours.push(runCli(name, 1001 + r));
    api.push(await runApi(name, 1001 + r));
  }
  const stan = stanResults[name];
  const oursEssPerS = ours.length > 0 ? median(ours.map((o) => o.minEssBulk / o.samplerSeconds)) : median(api.map((a) => a.minEssBulk / a.samplerSeconds));
  const apiEssPerCpuS = median(api.map((a) => a.minEssBulk / a.samplerCpuSeconds));
  const line: Record<string, unknown> = {
    case: name,
    ours_api: {
      runs: api,
      sampler_s_median: +median(api.map((a) => a.samplerSeconds)).toFixed(3),
      sampler_cpu_s_median: +median(api.map((a) => a.samplerCpuSeconds)).toFixed(3),
      min_ess_bulk_median: +median(api.map((a) => a.minEssBulk)).toFixed(0),
      ess_per_s_median: +median(api.map((a) => a.minEssBulk / a.samplerSeconds)).toFixed(0),
      ess_per_cpu_s_median: +apiEssPerCpuS.toFixed(0),
      grad_evals_median: median(api.map((a) => a.gradEvals)),
    },
  };
  if (ours.length > 0) {
    line["ours"] = {
      runs: ours,
      sampler_s_median: +median(ours.map((o) => o.samplerSeconds)).toFixed(3),
      min_ess_bulk_median: +median(ours.map((o) => o.minEssBulk)).toFixed(0),
      ess_per_s_median: +oursEssPerS.toFixed(0),
      process_wall_s_median: ours[0]!.processWall !== undefined ? +median(ours.map((o) => o.processWall!)).toFixed(2) : null,
      process_cpu_s_median: ours[0]!.processCpu !== undefined ? +median(ours.map((o) => o.processCpu!)).toFixed(2) : null,
      grad_evals_median: median(ours.map((o) => o.gradEvals)),
    };
  }
  if (stan !== undefined) {
    const chainTotals = stan.runs.map((r) => r.chain_warmup_s.map((w, c) => w + r.chain_sampling_s[c]!));
    const twoCores = stan.runs.map((_, i) => sum(chainTotals[i]!) / 2);
    const stanEssPerS = median(stan.runs.map((r, i) => r.min_ess_bulk / twoCores[i]!));
    line["stan"] = {
      rstan: stan.rstan,
      recorded: stan.date,
      sampler_s_2_cores_median: +median(twoCores).toFixed(3),
      slowest_chain_s_median: +median(chainTotals.map((t) => Math.max(...t))).toFixed(3),
      min_ess_bulk_median: +median(stan.runs.map((r) => r.min_ess_bulk)).toFixed(0),
      ess_per_s_2_cores_median: +stanEssPerS.toFixed(0),
      sampling_call_wall_s_median: +median(stan.runs.map((r) => r.sampling_call_wall_s)).toFixed(2),
      sampling_call_cores2_wall_s: stan.parallel_run?.sampling_call_wall_s ?? null,
      grad_evals_median: median(stan.runs.map((r) => r.grad_evals)),
    };
    line["ratio_ess_per_s"] = +(oursEssPerS / stanEssPerS).toFixed(2);
    // Per CPU-second: Stan's clock() times summed over its chains against all our threads' CPU time.
    const stanEssPerCpuS = median(stan.runs.map((r, i) => r.min_ess_bulk / (2 * twoCores[i]!)));
    line["ratio_ess_per_cpu_s"] = +(apiEssPerCpuS / stanEssPerCpuS).toFixed(2);
    const a = line["ours_api"] as Record<string, number>;
    cpuRows.push(
      `| ${name} | ${a["sampler_cpu_s_median"]} s (wall ${a["sampler_s_median"]} s), ESS ${a["min_ess_bulk_median"]}, **${a["ess_per_cpu_s_median"]}/s** | ${+(2 * median(twoCores)).toFixed(3)} s, **${stanEssPerCpuS.toFixed(0)}/s** | **${line["ratio_ess_per_cpu_s"]}×** |`,
    );
    const o = (line["ours"] ?? line["ours_api"]) as Record<string, number | null>;
    const s = line["stan"] as Record<string, number | null>;
    rows.push(
      `| ${name} | ${o["sampler_s_median"]} s, ESS ${o["min_ess_bulk_median"]}, **${o["ess_per_s_median"]}/s** | ${s["sampler_s_2_cores_median"]} s, ESS ${s["min_ess_bulk_median"]}, **${s["ess_per_s_2_cores_median"]}/s** | **${line["ratio_ess_per_s"]}×** | ${o["process_wall_s_median"] ?? "—"} s (CPU ${o["process_cpu_s_median"] ?? "—"} s) | ${s["sampling_call_wall_s_median"]} s (cores = 2: ${s["sampling_call_cores2_wall_s"] ?? "—"} s) | ${o["grad_evals_median"]} / ${s["grad_evals_median"]} |`,
    );
  }
  console.log(JSON.stringify(line));
}
await stopSamplerThreads();
console.log("\n| case | ours: sampler time, min bulk-ESS, ESS/s | Stan on 2 cores: sampler time, min bulk-ESS, ESS/s | ratio | ours: whole `ppl sample` process | Stan: rstan `sampling()` call | gradients ours / Stan |");
console.log("| --- | --- | --- | --- | --- | --- | --- |");
for (const r of rows) console.log(r);
console.log("\n| case | ours (API, threads): sampler CPU time, min bulk-ESS, ESS per CPU-second | Stan: chains' CPU time summed, ESS per CPU-second | ratio |");
console.log("| --- | --- | --- | --- |");
for (const r of cpuRows) console.log(r);

/**
 * The posteriordb suite sampled by a many-chain layer method (ChEES, MEADS) from random initial
 * points in (−2, 2), on the CPU (f64) or with each round's batched gradient on a Vulkan device:
 *   tsx bench/posteriordb-layer.ts --algorithm chees|meads [--chains 256] [--superchains 16] [--warmup N] [--draws N]
 *     (warmup and draws 300 + 100 for chees, 2000 + 500 for meads)
 *     [--backend cpu|vulkan] [--dtype f32|f64] [--seed N] [--posteriordb DIR] [--json FILE] [names…]
 * Prints the pass table of bench/posteriordb.ts, with each posterior's lowest bulk ESS and highest
 * nested R-hat (of the reference parameters) on stderr. On vulkan, a posterior whose settings need
 * f64 runs in f64 whatever --dtype says. Models are imported statically so the program can be
 * bundled (bench/build-gpu.sh); names default to every model below whose posterior folder exists.
 */
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_SEED, failureLines, folderOf, reportTable, resolveName, runPosterior, type PosteriorReport, type PosteriorRunner } from "../packages/ppl/src/posteriordb/index.ts";
import type { Model } from "../packages/ppl/src/index.ts";
import { prepareGpuGradient } from "../packages/ppl-vulkan/src/index.ts";
import arK from "../examples/posteriordb/arK-arK.ts";
import diamonds from "../examples/posteriordb/diamonds-diamonds.ts";
import earnings from "../examples/posteriordb/earnings-logearn_interaction.ts";
import eightSchools from "../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";
import garch from "../examples/posteriordb/garch-garch11.ts";
import gp from "../examples/posteriordb/gp_pois_regr-gp_pois_regr.ts";
import hmm from "../examples/posteriordb/hmm_example-hmm_example.ts";
import lotkaVolterra from "../examples/posteriordb/hudson_lynx_hare-lotka_volterra.ts";
import kidiq from "../examples/posteriordb/kidiq-kidscore_interaction.ts";
import mixture from "../examples/posteriordb/low_dim_gauss_mix-low_dim_gauss_mix.ts";
import mesquite from "../examples/posteriordb/mesquite-logmesquite.ts";
import oneComp from "../examples/posteriordb/one_comp_mm_elim_abs-one_comp_mm_elim_abs.ts";
import sblrc from "../examples/posteriordb/sblrc-blr.ts";

const MODELS: Record<string, Model> = {
  "arK-arK": arK, "diamonds-diamonds": diamonds, "earnings-logearn_interaction": earnings,
  "eight_schools-eight_schools_noncentered": eightSchools, "garch-garch11": garch, "gp_pois_regr-gp_pois_regr": gp,
  "hmm_example-hmm_example": hmm, "hudson_lynx_hare-lotka_volterra": lotkaVolterra, "kidiq-kidscore_interaction": kidiq,
  "low_dim_gauss_mix-low_dim_gauss_mix": mixture, "mesquite-logmesquite": mesquite,
  "one_comp_mm_elim_abs-one_comp_mm_elim_abs": oneComp, "sblrc-blr": sblrc,
};

const USAGE = "usage: tsx bench/posteriordb-layer.ts --algorithm chees|meads [--chains 256] [--superchains 16] [--warmup N] [--draws N] (300 + 100 for chees, 2000 + 500 for meads) [--backend cpu|vulkan] [--dtype f32|f64] [--seed N] [--posteriordb DIR] [--json FILE] [names…]";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    algorithm: { type: "string" }, chains: { type: "string" }, superchains: { type: "string" }, warmup: { type: "string" }, draws: { type: "string" },
    backend: { type: "string" }, dtype: { type: "string" }, seed: { type: "string" }, posteriordb: { type: "string" }, json: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

// A whole number ≥ min from a flag, or the fallback; exits naming the flag otherwise.
function count(flag: string, value: string | undefined, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min) {
    console.error(`--${flag} must be a whole number ≥ ${min}, got ${value}\n${USAGE}`);
    process.exit(2);
  }
  return n;
}

const algorithm = values.algorithm ?? "chees";
const backend = values.backend ?? "cpu";
const dtypeFlag = values.dtype ?? "f32";
if (backend !== "cpu" && backend !== "vulkan") {
  console.error(`--backend ${backend}: use cpu or vulkan\n${USAGE}`);
  process.exit(2);
}
if (dtypeFlag !== "f32" && dtypeFlag !== "f64") {
  console.error(`--dtype ${dtypeFlag}: use f32 or f64\n${USAGE}`);
  process.exit(2);
}
const dtype: "f32" | "f64" = dtypeFlag;
const chains = count("chains", values.chains, 256, 2);
const superchains = count("superchains", values.superchains, 16, 1);
const seed = count("seed", values.seed, DEFAULT_SEED, 0);
// The layer methods adapt a diagonal metric (diamonds' settings ask for a dense one for NUTS).
// MEADS takes one leapfrog step an iteration: its default run is longer in iterations (2000 + 500,
// about 3,900 gradients a chain with its travel-in) than ChEES's (300 + 100, each iteration a trajectory of many).
const meadsRun = algorithm === "meads";
const lengths = { chains, metric: "diag" as const, warmup: count("warmup", values.warmup, meadsRun ? 2000 : 300, 0), draws: count("draws", values.draws, meadsRun ? 500 : 100, 1) };
const dir = values.posteriordb;
const present = Object.keys(MODELS).filter((n) => existsSync(join(dir ?? folderOf(n), n, "reference.json")));
let names: string[];
try {
  names = positionals.length > 0 ? positionals.map((n) => resolveName(n, Object.keys(MODELS))) : present;
} catch (e) {
  console.error((e as Error).message);
  process.exit(2);
}

// The batched gradient on the first Vulkan device, in the posterior's float type where it needs f64.
async function vulkanRunner(compiled: Parameters<typeof prepareGpuGradient>[0], settings: { chains: number; maxDepth: number; precision: "f32" | "f64" }): Promise<PosteriorRunner> {
  const used = settings.precision === "f64" ? "f64" : dtype;
  const gpu = await prepareGpuGradient(compiled, { chains: settings.chains, maxDepth: settings.maxDepth, metric: "diag", dtype: used, transitions: "host" });
  console.error(`  ${gpu.device}, ${used}`);
  return gpu;
}

const started = Date.now();
const reports: PosteriorReport[] = [];
// A posterior that cannot run (a driver that refuses its kernels) is reported and the suite goes on.
const errors: string[] = [];
for (const name of names) {
  let report: PosteriorReport;
  try {
    report = await runPosterior(name, {
      seed, model: MODELS[name], settings: lengths, method: algorithm, superchains,
      ...(dir ? { posteriordb: dir } : {}),
      ...(backend === "vulkan" ? { runner: vulkanRunner } : {}),
    });
  } catch (e) {
    const message = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
    errors.push(`${name}: ${message}`);
    console.error(`ERROR ${name}: ${message}`);
    continue;
  }
  reports.push(report);
  const ess = report.minEssBulk;
  const rhat = report.maxRhatNested;
  console.error(`${report.pass ? "pass" : "FAIL"} ${name}: worst |z| ${report.worstZ.value.toFixed(2)} (${report.worstZ.name}), sd ratio ${report.worstSdRatio.value.toFixed(3)}, ` +
    `${report.divergences} divergences, lowest bulk ESS ${ess ? `${ess.value.toFixed(0)} (${ess.name})` : "-"}, highest nested R-hat ${rhat ? `${rhat.value.toFixed(4)} (${rhat.name})` : "-"}, ` +
    `${report.gradientEvaluations} gradients, ${report.wallSeconds.toFixed(1)} s`);
  for (const f of failureLines(report)) console.error(`  ${f}`);
}
console.log(`\nposteriordb, ${algorithm} on ${backend}${backend === "vulkan" ? ` (${dtype}, f64 where a posterior needs it)` : " (f64)"} — ${chains} chains in ${superchains} superchains, ` +
  `${lengths.warmup} warmup + ${lengths.draws} draws, seed ${seed}, ${new Date().toISOString()}\n`);
console.log(reportTable(reports));
for (const e of errors) console.log(`did not run: ${e}`);
console.log(`\n${reports.filter((r) => r.pass).length}/${reports.length + errors.length} pass; total ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (values.json) writeFileSync(values.json, JSON.stringify({ algorithm, backend, dtype, seed, ...lengths, superchains, reports, errors }, null, 2));
process.exit(errors.length === 0 && reports.every((r) => r.pass) ? 0 : 1);

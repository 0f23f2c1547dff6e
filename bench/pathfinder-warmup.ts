/**
 * How much warmup `ppl sample --init pathfinder` saves on the posteriordb suite (issue 45, item 5),
 * on the CPU: each posterior sampled with the suite's settings (4 chains × 1000 draws, its seed) at
 * each warmup length, from Pathfinder's starts (multi-path Pathfinder with CmdStan's defaults and
 * the run's seed, chain c at resampled draw c, as `ppl sample --init pathfinder`) and from uniform
 * (−2, 2) starts, each run judged by the posteriordb pass rule. Prints a line a run, a Markdown table,
 * and for each start the shortest warmup at which it passes as many posteriors as at the longest:
 * the warmup each start needs at an equal pass rate.
 *   pnpm tsx bench/pathfinder-warmup.ts [names…] [--warmup 1000,150,50,20] [--starts pathfinder,uniform]
 *     [--seed N] [--json FILE]
 * Names default to the six of docs/pathfinder.md's comparison; a unique prefix names one. Minutes
 * per posterior (a Pathfinder run, then 2 × the warmups' sampling runs).
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { compileModel, modelDensity } from "../packages/ppl/src/index.ts";
import { objectiveOf, pathfinder } from "../packages/ppl/src/inference.ts";
import { DEFAULT_SEED, loadModel, loadPosterior, posteriorNames, resolveName, runPosterior, SUITE_RUN } from "../packages/ppl/src/posteriordb/index.ts";

const DEFAULT_NAMES = ["eight_schools-eight_schools_noncentered", "sblrc-blr", "mesquite-logmesquite", "arK-arK", "garch-garch11", "kidiq-kidscore_interaction"];

type Start = "pathfinder" | "uniform";

interface Run {
  readonly name: string;
  readonly start: Start;
  readonly warmup: number;
  readonly pass: boolean;
  readonly worstZ: number;
  readonly worstSdRatio: number;
  readonly divergences: number;
  readonly gradientEvaluations: number;
  readonly seconds: number;
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { warmup: { type: "string" }, starts: { type: "string" }, seed: { type: "string" }, json: { type: "string" }, help: { type: "boolean", short: "h" } },
});
if (values.help) {
  console.log("usage: pnpm tsx bench/pathfinder-warmup.ts [names…] [--warmup 1000,150,50,20] [--starts pathfinder,uniform] [--seed N] [--json FILE]");
  process.exit(0);
}
const seed = values.seed === undefined ? DEFAULT_SEED : Number(values.seed);
const warmups = (values.warmup ?? "1000,150,50,20").split(",").map(Number).sort((a, b) => b - a);
const starts = (values.starts ?? "pathfinder,uniform").split(",") as Start[];
if (!warmups.every((w) => Number.isInteger(w) && w >= 0) || !starts.every((s) => s === "pathfinder" || s === "uniform")) {
  console.error("--warmup takes non-negative integers, --starts pathfinder and/or uniform");
  process.exit(2);
}
const all = posteriorNames();
const names = positionals.length > 0 ? positionals.map((n) => resolveName(n, all)) : DEFAULT_NAMES;

/** Pathfinder's starts for a posterior's chains (the CPU density, the run's seed), its seconds and gradient evaluations. */
async function pathfinderStarts(name: string): Promise<{ init: Float64Array[]; seconds: number; evaluations: number }> {
  const compiled = compileModel(await loadModel(name), loadPosterior(name).data);
  const t0 = performance.now();
  const r = pathfinder(objectiveOf(await modelDensity(compiled, { backend: "cpu" })), { seed, numResampled: SUITE_RUN.chains });
  return { init: r.draws.x, seconds: (performance.now() - t0) / 1000, evaluations: r.paths.reduce((t, p) => t + p.evaluations, 0) };
}

const runs: Run[] = [];
for (const name of names) {
  const pf = starts.includes("pathfinder") ? await pathfinderStarts(name) : undefined;
  if (pf) console.error(`${name}: Pathfinder ${pf.seconds.toFixed(1)} s, ${pf.evaluations} density evaluations`);
  for (const warmup of warmups) {
    for (const start of starts) {
      const r = await runPosterior(name, { seed, settings: { warmup }, ...(start === "pathfinder" ? { init: pf!.init } : {}) });
      const run: Run = {
        name, start, warmup, pass: r.pass, worstZ: r.worstZ.value, worstSdRatio: r.worstSdRatio.value, divergences: r.divergences,
        gradientEvaluations: r.gradientEvaluations, seconds: r.wallSeconds,
      };
      runs.push(run);
      console.error(`${run.pass ? "pass" : "FAIL"} ${name} warmup ${warmup} from ${start}: |z| ${run.worstZ.toFixed(2)}, sd ratio ${run.worstSdRatio.toFixed(2)}, ${run.divergences} div., ${run.gradientEvaluations} gradients, ${run.seconds.toFixed(1)} s`);
    }
  }
}

const cell = (name: string, warmup: number, start: Start): string => {
  const r = runs.find((x) => x.name === name && x.warmup === warmup && x.start === start);
  if (r === undefined) return "";
  return r.pass ? (r.divergences > 0 ? `pass (${r.divergences} div.)` : "pass") : `fail (worst z ${r.worstZ.toFixed(1)}, sd ratio ${r.worstSdRatio.toFixed(2)})`;
};
console.log(`\n--init pathfinder against uniform starts, CPU, seed ${seed}, ${SUITE_RUN.chains} chains × ${SUITE_RUN.draws} draws\n`);
console.log(`| posterior | ${warmups.map((w) => `${w}: ${starts.join(" / ")}`).join(" | ")} |`);
console.log(`| --- | ${warmups.map(() => "---").join(" | ")} |`);
for (const name of names) console.log(`| ${name} | ${warmups.map((w) => starts.map((s) => cell(name, w, s)).join(" / ")).join(" | ")} |`);
console.log("");
for (const start of starts) {
  const passes = warmups.map((w) => runs.filter((r) => r.start === start && r.warmup === w && r.pass).length);
  // The shortest warmup whose pass count, and every longer one's, equals the longest warmup's.
  let shortest = warmups[0]!;
  for (let i = 0; i < warmups.length && passes[i] === passes[0]; i++) shortest = warmups[i]!;
  console.log(`${start}: passes ${warmups.map((w, i) => `${passes[i]}/${names.length} at ${w}`).join(", ")}; as many as at ${warmups[0]} down to warmup ${shortest}`);
}
if (values.json) writeFileSync(values.json, JSON.stringify({ seed, warmups, starts, runs }, null, 2));

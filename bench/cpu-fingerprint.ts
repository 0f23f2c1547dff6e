/**
 * Fixed-seed fingerprints of CPU sampler runs: a SHA-256 of every chain's draws, statistics,
 * adaptation and gradient count (the f64 bytes), for eight schools (diag, dense, static HMC) and
 * every posteriordb model on a short run. Two checkouts that print the same JSON sample
 * bit-identically; this is how a speed-up is shown to leave the draws alone.
 * With --threads N the runs use N threads (their hashes must not change).
 * Run: npx tsx bench/cpu-fingerprint.ts [--short] [--threads N] > fp.json
 */
import { createHash } from "node:crypto";
import { parseArgs } from "node:util";
import { compileModel, modelDensity, sampleAsync, stopSamplerThreads, type Model, type SampleOptions, type SampleResult } from "../packages/ppl/src/index.ts";
import { loadPosterior, posteriordbDir } from "../packages/ppl/src/posteriordb/reference.ts";
import { posteriorNames } from "../packages/ppl/src/posteriordb/suite.ts";
import { loadModel } from "../packages/ppl/src/posteriordb/run-posterior.ts";
import eightSchools from "../examples/eight_schools.ts";
import logisticRegression from "../examples/logistic_regression.ts";

const { values } = parseArgs({ options: { short: { type: "boolean" }, threads: { type: "string" } } });
const threads = values.threads === undefined ? undefined : Number(values.threads);

function hash(r: SampleResult): string[] {
  return r.draws.map((d, c) => {
    const h = createHash("sha256");
    const add = (a: Float64Array): void => void h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    add(d);
    const st = r.stats[c]!;
    for (const a of [st.lp, st.acceptStat, st.stepSize, st.treeDepth, st.nLeapfrog, st.divergent, st.energy]) add(a);
    add(Float64Array.of(r.adaptation[c]!.stepSize, r.gradientEvaluations[c]!));
    add(r.adaptation[c]!.invMetric);
    return h.digest("hex").slice(0, 16);
  });
}

async function run(name: string, model: Model, data: unknown, opts: SampleOptions): Promise<void> {
  const compiled = compileModel(model, data, { allowExtraKeys: true });
  const density = await modelDensity(compiled, { backend: "cpu" });
  const t0 = performance.now();
  const r = await sampleAsync(density, { seed: 20251201, ...opts, ...(threads !== undefined ? { threads } : {}) });
  const s = (performance.now() - t0) / 1000;
  process.stderr.write(`${name}: ${s.toFixed(2)} s\n`);
  console.log(JSON.stringify({ case: name, chains: hash(r) }));
}

const eightData = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };
await run("eight_schools diag 4x(1000+1000)", eightSchools, eightData, { chains: 4, warmup: 1000, draws: 1000 });
await run("eight_schools dense 2x(300+200)", eightSchools, eightData, { chains: 2, warmup: 300, draws: 200, metric: "dense" });
await run("eight_schools hmc 2x(300+200)", eightSchools, eightData, { chains: 2, warmup: 300, draws: 200, sampler: "hmc", hmcSteps: 7 });
// Large enough (X: 2000 × 40) for the long matrix products of the compiled path to take their fast route.
{
  let state = 2024;
  const rand = (): number => (state = (state * 1664525 + 1013904223) >>> 0) / 2 ** 32;
  const N = 2000, K = 40;
  const X = Array.from({ length: N }, () => Array.from({ length: K }, () => 2 * rand() - 1));
  const y = X.map((row) => (rand() < 1 / (1 + Math.exp(-(0.3 + row.reduce((s, x, k) => s + x * (k % 3 === 0 ? 0.5 : -0.2), 0)))) ? 1 : 0));
  await run("logistic_regression N=2000 K=40 2x(150+100)", logisticRegression, { N, K, X, y }, { chains: 2, warmup: 150, draws: 100 });
}
if (!values.short) {
  for (const name of posteriorNames(posteriordbDir())) {
    const posterior = loadPosterior(name);
    const metric = name.startsWith("diamonds") ? "dense" : "diag";
    await run(name, await loadModel(name), posterior.data, { chains: 2, warmup: 150, draws: 100, metric, firstChain: 1 });
  }
}
await stopSamplerThreads();

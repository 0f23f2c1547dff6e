/**
 * The loop pass's bound (issue #50): a Stan program's gradient against its TypeScript twin's, in µs
 * per gradient, for eight_schools, kidiq, diamonds and hmm_example (posteriordb's programs against
 * examples/posteriordb's ports) and `hier` with a loop over N = 100,000 rows (bench/stan/hier_loop.stan
 * against bench/anchor-models.ts' anchorHier, on a fixed synthetic data set of J = 1,000 groups).
 *
 * - cpu: the compiled density's logpGrad for one chain (what the CPU sampler calls), after 200
 *   warm-up evaluations; the median over `--rounds` rounds of each round's process CPU time / evaluations.
 * - vulkan: the batched gradient of `--chains` chains (bench/gpu-anchors.ts' --gradient-only), the
 *   median of 7 submissions of `--evals` gradients, divided by the evaluations.
 * The twin and the program are timed alternately in the same process; the ratio is Stan / twin, of
 * the medians and of the fastest rounds (on a loaded machine the least disturbed).
 *
 *   npx tsx bench/stan-vs-twin.ts [--backend cpu|vulkan] [--cases eight_schools,kidiq,diamonds,hmm_example,hier_loop_n100k]
 *     [--rounds 15] [--chains 1] [--evals 100] [--dtype f32|f64] [--root DIR] [--json]
 * On the GPU machine (bench/build-gpu.sh): node .gpuout/stan-vs-twin.mjs --backend vulkan --root .gpuout
 * (--root holds posteriordb/<name>/{model.stan,data.json} and stan/hier_loop.stan).
 */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { compileModel, type CompiledModel, type Model } from "../packages/ppl/src/index.ts";
import { recordedDensity } from "../packages/ppl/src/internals.ts";
import { compileStan } from "../packages/stan/src/index.ts";
import { limitsOf, VulkanManager } from "../packages/vulkan/src/index.ts";
import { batchedGradient } from "../packages/ppl-vulkan/src/index.ts";
import { anchorHier } from "./anchor-models.ts";
import eightSchools from "../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";
import kidiq from "../examples/posteriordb/kidiq-kidscore_interaction.ts";
import diamonds from "../examples/posteriordb/diamonds-diamonds.ts";
import hmmExample from "../examples/posteriordb/hmm_example-hmm_example.ts";

const { values: opts } = parseArgs({
  options: {
    backend: { type: "string" }, cases: { type: "string" }, rounds: { type: "string" }, chains: { type: "string" },
    evals: { type: "string" }, dtype: { type: "string" }, root: { type: "string" }, json: { type: "boolean" },
  },
});
const backend = opts.backend ?? "cpu";
const root = resolve(opts.root ?? join(import.meta.dirname, ".."));
const posteriordb = opts.root !== undefined ? join(root, "posteriordb") : resolve(root, "../shared/posteriordb");
const stanDir = opts.root !== undefined ? join(root, "stan") : join(root, "bench/stan");

/** A case: the Stan program's path, its twin and the data both read. */
interface TwinCase {
  readonly stan: string;
  readonly twin: Model;
  readonly data: () => Record<string, unknown>;
}

const fromPosteriordb = (name: string, twin: Model): TwinCase => ({
  stan: join(posteriordb, name, "model.stan"),
  twin,
  data: () => JSON.parse(readFileSync(join(posteriordb, name, "data.json"), "utf8")) as Record<string, unknown>,
});

// A fixed synthetic `hier` data set: every group holds N / J rows, smooth waves for x, u and y.
function hierData(N: number, J: number): Record<string, unknown> {
  const wave = (i: number): number => Math.round(1e6 * Math.sin(i * 0.7) * 0.5) / 1e6;
  return {
    N, J,
    g: Array.from({ length: N }, (_, n) => (n * 7919) % J),
    x: Array.from({ length: N }, (_, n) => wave(n)),
    u: Array.from({ length: J }, (_, j) => wave(j)),
    y: Array.from({ length: N }, (_, n) => wave(3 * n) + 0.3 * wave(n)),
  };
}

const CASES: Readonly<Record<string, TwinCase>> = {
  eight_schools: fromPosteriordb("eight_schools-eight_schools_noncentered", eightSchools),
  kidiq: fromPosteriordb("kidiq-kidscore_interaction", kidiq),
  diamonds: fromPosteriordb("diamonds-diamonds", diamonds),
  hmm_example: fromPosteriordb("hmm_example-hmm_example", hmmExample),
  hier_loop_n100k: { stan: join(stanDir, "hier_loop.stan"), twin: anchorHier, data: () => hierData(100_000, 1_000) },
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
const cpuMicros = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
// A fixed walk of points around the origin, the same for both sides of a case.
const points = (dim: number): Float64Array[] => Array.from({ length: 16 }, (_, k) => Float64Array.from({ length: dim }, (_, j) => 0.3 * Math.sin(k + 1.7 * j)));

/** µs per gradient on the CPU: one round of `batch` evaluations, CPU time / batch. */
async function cpuTimer(cm: CompiledModel): Promise<() => number> {
  const { logpGrad } = await recordedDensity(cm);
  const ps = points(cm.dim);
  const grad = new Float64Array(cm.dim);
  let sink = 0;
  const t0 = performance.now();
  for (let i = 0; i < 200; i++) sink += logpGrad(ps[i & 15]!, grad);
  // About 50 ms a round, at least 5 evaluations.
  const batch = Math.max(5, Math.round((50 * 200) / Math.max(1e-3, performance.now() - t0)));
  return () => {
    const c0 = cpuMicros();
    for (let i = 0; i < batch; i++) sink += logpGrad(ps[i & 15]!, grad);
    if (!Number.isFinite(sink)) throw new Error("a log density was not finite");
    return (cpuMicros() - c0) / batch;
  };
}

/** µs per batched gradient of `chains` chains on the Vulkan device. */
async function vulkanTimer(cm: CompiledModel, manager: VulkanManager): Promise<() => number> {
  const chains = Number(opts.chains ?? 1);
  const evals = Number(opts.evals ?? 100);
  const dtype = (opts.dtype ?? "f32") as "f32" | "f64";
  const g = await batchedGradient(manager, cm, chains, dtype, limitsOf(manager.device));
  const q = Array.from({ length: chains }, () => Array.from(points(cm.dim)[3]!)).flat();
  g.q.write(dtype === "f64" ? Float64Array.from(q) : Float32Array.from(q));
  const s = manager.sequence();
  for (let i = 0; i < evals; i++) for (const d of g.step) s.dispatch(d.algorithm, d.buffers, d.groups);
  s.submitSync();
  return () => {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      s.submitSync();
      times.push(performance.now() - t0);
    }
    return (median(times) * 1000) / evals;
  };
}

/** One case's figures: µs per gradient of each side, and their ratio. */
interface TwinTiming {
  readonly case: string;
  readonly dim: number;
  readonly stanUs: number;
  readonly twinUs: number;
  readonly ratio: number;
  /** The fastest round's figures and their ratio: on a shared machine, the round least disturbed. */
  readonly stanMinUs: number;
  readonly twinMinUs: number;
  readonly minRatio: number;
  readonly stanBuildMs: number;
}

async function timeCase(name: string, manager: VulkanManager | undefined): Promise<TwinTiming> {
  const c = CASES[name];
  if (c === undefined) throw new Error(`unknown case '${name}'; the cases are ${Object.keys(CASES).join(", ")}`);
  const data = c.data();
  const t0 = performance.now();
  const stan = compileModel(compileStan(readFileSync(c.stan, "utf8"), c.stan), data, { allowExtraKeys: true });
  const stanBuildMs = performance.now() - t0;
  const twin = compileModel(c.twin, data, { allowExtraKeys: true });
  const timer = (cm: CompiledModel) => (manager ? vulkanTimer(cm, manager) : cpuTimer(cm));
  const [ts, tt] = [await timer(stan), await timer(twin)];
  const a: number[] = [], b: number[] = [];
  for (let r = 0; r < Number(opts.rounds ?? 15); r++) {
    a.push(ts());
    b.push(tt());
  }
  const [stanUs, twinUs] = [median(a), median(b)];
  const [stanMinUs, twinMinUs] = [Math.min(...a), Math.min(...b)];
  return { case: name, dim: stan.dim, stanUs, twinUs, ratio: stanUs / twinUs, stanMinUs, twinMinUs, minRatio: stanMinUs / twinMinUs, stanBuildMs };
}

const manager = backend === "vulkan" ? new VulkanManager() : undefined;
const results: TwinTiming[] = [];
for (const name of (opts.cases ?? Object.keys(CASES).join(",")).split(",")) {
  const t = await timeCase(name, manager);
  results.push(t);
  if (!opts.json) {
    console.log(
      `${t.case}: dim ${t.dim}; median Stan ${t.stanUs.toFixed(1)} µs, twin ${t.twinUs.toFixed(1)} µs per gradient (${backend}), ratio ${t.ratio.toFixed(2)}; ` +
        `fastest round ${t.stanMinUs.toFixed(1)} / ${t.twinMinUs.toFixed(1)} µs, ratio ${t.minRatio.toFixed(2)}; Stan build ${t.stanBuildMs.toFixed(0)} ms`,
    );
  }
}
if (opts.json) console.log(JSON.stringify({ date: new Date().toISOString(), backend, results }));

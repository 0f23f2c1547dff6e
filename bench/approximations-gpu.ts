/**
 * Pathfinder and ADVI on the GPU's batched gradient against the CPU (issue 45, "On the GPU"): the
 * `hier` and N=100k logistic anchors (data read as bench/gpu-anchors.ts reads them, the raw files
 * of ../shared/anchors/make_data.py), each method run through the library's approximateTarget with
 * its batched evaluations on the CPU (one point at a time) or on the device (each round of points
 * one submission). One JSON line a case, method and backend: the wall time of the run (the batched
 * gradient's preparation apart), the batched calls, and a few numbers to check that both backends
 * found the same approximation (mean lp__ or log_p__, Pareto k, ADVI's iterations).
 *   tsx bench/approximations-gpu.ts --data DIR [--cases hier,lr] [--methods pathfinder,variational]
 *     [--backends vulkan,cpu] [--dtype f64|f32] [--seed 1] [--paths 4] [--draws 1000] [--elbo-draws 25]
 *     [--lbfgs-iters 1000] [--iter 10000] [--grad-samples 1] [--elbo-samples 100] [--device N]
 *   On the GPU machine (bash bench/build-gpu.sh bundles it): source .gpu/enter.sh; source .gpuout/env.sh;
 *   python3 .gpuout/make_data.py /tmp/data; then one command a case, each within a call's 10 minutes
 *   (the CPU side of a case is most of its time: Pathfinder's thousands of gradients at 10–25 ms on lr):
 *     node .gpuout/approximations-gpu.mjs --data /tmp/data --cases lr
 *     node .gpuout/approximations-gpu.mjs --data /tmp/data --cases hier
 *   (--backends vulkan alone, or --dtype f32, for the device's side without the CPU's.)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  approximateTarget, approximationBackend, approximationTarget, compileModel, roundSizes, type ApproximateOptions, type CompiledModel,
} from "../packages/ppl/src/index.ts";
import { loopedObjective } from "../packages/ppl/src/inference.ts";
import "../packages/ppl-vulkan/src/index.ts";
import { anchorHier, anchorLogistic } from "./anchor-models.ts";

const args = process.argv.slice(2);
const opt = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const num = (name: string, fallback: number): number => Number(opt(name, String(fallback)));
const dataDir = opt("data", "/tmp/anchor-data");
const cases = opt("cases", "hier,lr").split(",");
const methods = opt("methods", "pathfinder,variational").split(",");
const backends = opt("backends", "vulkan,cpu").split(",") as ("vulkan" | "cpu")[];
const dtype = opt("dtype", "f64") as "f32" | "f64";
const device = args.includes("--device") ? num("device", 0) : undefined;

function raw(name: string, file: string): Float32Array | Int32Array {
  const b = readFileSync(join(dataDir, `${name}.${file}`));
  return file.endsWith(".i32") ? new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4) : new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
}

function anchor(name: string): CompiledModel {
  const index = JSON.parse(readFileSync(join(dataDir, "index.json"), "utf8"))[name];
  if (name.startsWith("logistic")) return compileModel(anchorLogistic, { N: index.N, D: index.D, X: raw(name, "X.f32"), y: raw(name, "y.f32") });
  return compileModel(anchorHier, { N: index.N, J: index.J, g: raw(name, "g.i32"), x: raw(name, "x.f32"), u: raw(name, "u.f32"), y: raw(name, "y.f32") });
}

function optionsOf(method: string): ApproximateOptions {
  const seed = num("seed", 1);
  if (method === "pathfinder") {
    return { method, seed, numPaths: num("paths", 4), draws: num("draws", 1000), numElboDraws: num("elbo-draws", 25), maxLbfgsIters: num("lbfgs-iters", 1000) };
  }
  return { method: "variational", seed, draws: num("draws", 1000), iter: num("iter", 10000), gradSamples: num("grad-samples", 1), elboSamples: num("elbo-samples", 100) };
}

const mean = (x: Float64Array): number => x.reduce((a, b) => a + b, 0) / x.length;

async function runOne(name: string, compiled: CompiledModel, method: string, backend: "vulkan" | "cpu"): Promise<void> {
  const options = optionsOf(method);
  const target = await approximationTarget(compiled, true);
  const p0 = performance.now();
  const placed = await approximationBackend(compiled, true, roundSizes(options, compiled.dim), { backend, dtype, ...(device !== undefined ? { device } : {}) });
  const prepareSeconds = (performance.now() - p0) / 1e3;
  // On the CPU, the looped objective: its calls counted as the device's are.
  const batched = placed.batched ?? loopedObjective(target.objective);
  try {
    const t0 = performance.now();
    const fit = approximateTarget({ ...target, batched }, options);
    const seconds = (performance.now() - t0) / 1e3;
    const lp = method === "pathfinder" ? fit.draws("lp__") : fit.draws("log_p__");
    console.log(JSON.stringify({
      case: name, method, backend, where: placed.note, dtype: backend === "cpu" ? "f64" : dtype, dim: compiled.dim, prepareSeconds, seconds, batchedCalls: batched.calls,
      meanLp: mean(lp), ...(method === "pathfinder" ? { paretoK: fit.paretoK, paths: fit.notes.length - 1 } : { iterations: fit.ascent!.iterations, converged: fit.converged }),
      options, maxRssMB: process.resourceUsage().maxRSS / 1024,
    }));
  } finally {
    placed.dispose();
  }
}

const names: Record<string, string> = { hier: "hier_n100k_j2000", lr: "logistic_n100k_d100" };
for (const c of cases) {
  const name = names[c] ?? c;
  const compiled = anchor(name);
  for (const method of methods) for (const backend of backends) await runOne(name, compiled, method, backend);
}
process.exit(0);

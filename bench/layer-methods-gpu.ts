/**
 * What a round of a layer method on the GPU's batched gradient costs (docs/many-chain-hmc.md, "On
 * the GPU"): eight schools (noncentered) sampled with the method's controller on the host and each
 * round of all chains' gradients one device evaluation, for each chain count given; the round's
 * time split into the device's wait (submit to done) and the host's part (the controller, the
 * writes and reads). With --cpu, the same run on the CPU density (f64) beside it. One JSON line a run.
 *   tsx bench/layer-methods-gpu.ts [CHAINS …] [--method chees] [--dtype f32] [--warmup 100] [--draws 100] [--cpu]
 *   (default 1024; on the GPU machine: node .gpuout/layer-methods-gpu.mjs 1024 4096 16384)
 */
import { compileModel, modelDensity, sample } from "../packages/ppl/src/index.ts";
import { prepareGpuGradient } from "../packages/ppl-vulkan/src/index.ts";
import eightSchools from "../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

// The data of examples/eight_schools.json, written here so that the bundle needs no file beside it.
const data = { J: 8, y: [28, 8, -3, 7, -1, 1, 18, 12], sigma: [15, 10, 16, 11, 9, 11, 10, 18] };

const args = process.argv.slice(2);
const flag = (name: string, fallback: string): string => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const valued = new Set(["--method", "--dtype", "--warmup", "--draws"]);
const counts = args.filter((a, i) => /^\d+$/.test(a) && !valued.has(args[i - 1] ?? "")).map(Number);
const method = flag("method", "chees");
const dtype = flag("dtype", "f32") as "f32" | "f64";
const warmup = Number(flag("warmup", "100"));
const draws = Number(flag("draws", "100"));
const compiled = compileModel(eightSchools, data);

for (const chains of counts.length > 0 ? counts : [1024]) {
  const p0 = performance.now();
  const gpu = await prepareGpuGradient(compiled, { chains, maxDepth: 10, metric: "diag", dtype, transitions: "host" });
  const prepareSeconds = (performance.now() - p0) / 1e3;
  const t0 = performance.now();
  sample(gpu.hostDensity(await modelDensity(compiled)), { warmup, draws, seed: 1, method, transitionRunner: gpu, keepDraws: false });
  const seconds = (performance.now() - t0) / 1e3;
  const rounds = gpu.density.evaluations;
  const wait = gpu.density.waitSeconds;
  console.log(JSON.stringify({
    device: gpu.device, method, dtype, chains, warmup, draws, prepareSeconds, seconds, rounds, kernels: gpu.kernelsPerEvaluation,
    msPerRound: (1e3 * seconds) / rounds, deviceMsPerRound: (1e3 * wait) / rounds, hostMsPerRound: (1e3 * (seconds - wait)) / rounds,
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }));
  gpu.dispose();
  if (args.includes("--cpu")) {
    const cpu = await modelDensity(compiled);
    const c0 = performance.now();
    sample(cpu, { chains, warmup, draws, seed: 1, method, keepDraws: false });
    console.log(JSON.stringify({ device: "cpu", method, dtype: "f64", chains, warmup, draws, seconds: (performance.now() - c0) / 1e3 }));
  }
}
process.exit(0);

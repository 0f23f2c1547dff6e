/**
 * What an iteration of a layer method on the GPU costs (docs/many-chain-hmc.md, "On the GPU"):
 * eight schools (noncentered) sampled with the method's controller on the host, for each chain
 * count given. A method with whole leapfrog trajectories (chees, hmc) runs each iteration's
 * trajectories as one device submission; its other rounds (initial points, step-size searches),
 * and every round of another method (meads), are one submission of the batched gradient each. The
 * iteration's time split into the device's wait (submit to done) and the host's part (the
 * controller, the writes and reads) and the recording of the trajectories' sequences (one a
 * trajectory length, kept), with the submissions per iteration. With --rounds, the same
 * run with the trajectories taken a leapfrog a submission (the route before whole trajectories);
 * with --cpu, the same run on the CPU density (f64). One JSON line a run.
 *   tsx bench/layer-methods-gpu.ts [CHAINS …] [--method chees] [--dtype f32] [--warmup 100] [--draws 100] [--rounds] [--cpu]
 *   (default 1024; on the GPU machine: node .gpuout/layer-methods-gpu.mjs 1024 4096 16384)
 */
import { readFileSync } from "node:fs";
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

// The calling thread's CPU seconds so far, from /proc (Linux; −1 elsewhere): Node 20 has no per-thread clock.
function threadCpuSeconds(): number {
  try {
    const fields = readFileSync("/proc/thread-self/stat", "utf8").split(") ")[1]!.split(" ");
    // utime and stime, fields 14 and 15 of stat(5), in clock ticks (100 a second on Linux).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return -1;
  }
}

// One run on the device, its trajectories whole (one submission an iteration's trajectories) or,
// with the density's leapfrogs hidden, a leapfrog a round (one submission a leapfrog).
async function deviceRun(chains: number, route: "trajectories" | "rounds"): Promise<void> {
  const p0 = performance.now();
  const gpu = await prepareGpuGradient(compiled, { chains, maxDepth: 10, metric: "diag", dtype, transitions: "host" });
  const prepareSeconds = (performance.now() - p0) / 1e3;
  const onDevice = gpu.hostDensity(await modelDensity(compiled));
  const density = route === "rounds" ? Object.create(onDevice, { leapfrogs: { value: undefined } }) : onDevice;
  const t0 = performance.now();
  const cpu0 = threadCpuSeconds();
  sample(density, { warmup, draws, seed: 1, method, transitionRunner: gpu, keepDraws: false });
  const seconds = (performance.now() - t0) / 1e3;
  const threadCpu = threadCpuSeconds() - cpu0;
  const rounds = gpu.density.evaluations;
  const { submissions: trajectorySubmissions, steps: trajectorySteps, recordSeconds, dispatchesPerStep } = gpu.leapfrogs;
  const wait = gpu.density.waitSeconds + gpu.leapfrogs.waitSeconds;
  const iterations = warmup + draws;
  console.log(JSON.stringify({
    device: gpu.device, method, dtype, chains, warmup, draws, route, prepareSeconds, seconds, kernels: gpu.kernelsPerEvaluation,
    rounds, trajectorySubmissions, trajectorySteps, dispatchesPerStep, submissionsPerIteration: (rounds + trajectorySubmissions) / iterations,
    msPerIteration: (1e3 * seconds) / iterations, deviceMsPerIteration: (1e3 * wait) / iterations,
    hostMsPerIteration: (1e3 * (seconds - wait - recordSeconds)) / iterations, recordMsPerIteration: (1e3 * recordSeconds) / iterations,
    // Round by round, the figures per round as before whole trajectories (bench/RESULTS.md's).
    ...(trajectorySubmissions === 0 ? { msPerRound: (1e3 * seconds) / rounds, deviceMsPerRound: (1e3 * wait) / rounds, hostMsPerRound: (1e3 * (seconds - wait)) / rounds } : {}),
    // The calling thread's CPU time (Linux), where the wall clock's host share is the machine's load's:
    // the device's queue runs in threads of its own, so this is the host's work (and the submissions').
    ...(threadCpu >= 0 ? { threadCpuMsPerIteration: (1e3 * threadCpu) / iterations } : {}),
    maxRssMB: process.resourceUsage().maxRSS / 1024,
  }));
  gpu.dispose();
}

for (const chains of counts.length > 0 ? counts : [1024]) {
  if (args.includes("--rounds")) await deviceRun(chains, "rounds");
  await deviceRun(chains, "trajectories");
  if (args.includes("--cpu")) {
    const cpu = await modelDensity(compiled);
    const c0 = performance.now();
    sample(cpu, { chains, warmup, draws, seed: 1, method, keepDraws: false });
    console.log(JSON.stringify({ device: "cpu", method, dtype: "f64", chains, warmup, draws, seconds: (performance.now() - c0) / 1e3 }));
  }
}
process.exit(0);

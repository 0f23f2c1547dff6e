/**
 * The anchor cases of DESIGN.md ("Performance") and `hier` (a hierarchical regression), sampled by this toolkit on a chosen backend,
 * with data read from the raw float32 files that ../shared/anchors/make_data.py writes (the very
 * numbers NumPyro's side uses). Prints one JSON line per case and repetition (rep 0 includes
 * compilation; rep 1 runs again in the same process, so only cached kernels are used).
 *
 *   tsx bench/gpu-anchors.ts --data DIR [--backend vulkan|cpu] [--dtype f32|f64] [--cases 8s,lr,many,hier] [--reps 2]
 *     [--shape auto|thread|workgroup|device] [--controller auto|thread|thread:GROUP|WG|WG:epilogue|WG:no-epilogue] [--workgroup WG] [--many-chains C]
 *     [--iterations WARMUP,DRAWS] [--gradient-evals N] (shortened runs for slow backends) [--fresh-device]
 *     [--groups G] (the chains split into G groups, each with its own manager on the same device,
 *     run at the same time through splitRunner and sampleAsync, as --device 0,0,… does)
 *     [--data-precision exact|f16] (f16: float data of ≥ 4096 elements stored in 16 bits on the
 *     device, as `ppl sample --data-precision f16`; run once with each to compare)
 *     [--cases walk] (examples/random_walk.ts with 100k steps, --walk-steps T: its batched gradient alone)
 *     [--digest] (a hash of every chain's draws, statistics and adaptation in the JSON: a change
 *     that must keep a seeded run's draws is checked by running before and after it)
 *   Time to a target ESS (bench/anchor-target.ts, docs/target-ess-benchmark.md) in place of the fixed-length runs:
 *     --target-ess N [--runs nuts:4:1000,nuts:1024:500,chees:4096:300,meads:4096:300] (method:chains:warmup)
 *     [--blocks 100,20] (draws a chain per check: up to 16 chains, more) [--superchains 32] (runs of more than 16 chains)
 *     [--max-draws 20000] [--max-draws-many 2000] (a chain's, up to 16 chains and more) [--max-seconds 300] (caps a repetition)
 *     [--budget-seconds B] (the whole process's: each repetition's cap is also what is left over the repetitions left);
 *     --cases 8s,lr,many,hier as above, `many` being its data
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compileModel, essBulk, modelDensity, sample, sampleAsync, type CompiledModel } from "../packages/ppl/src/index.ts";
import { chainGroupSizes, splitRunner } from "../packages/ppl/src/runner.ts";
import { limitsOf, usableDevices, VulkanManager, type RenderLimits } from "../packages/vulkan/src/index.ts";
import { batchedGradient, closeIdleDevices, prepareGpuNuts, roundedDataModel, type DataPrecision, type ExecutionShape, type GpuNuts } from "../packages/ppl-vulkan/src/index.ts";
import { anchorHier, anchorLogistic, syntheticWalk } from "./anchor-models.ts";
import { parseRuns, runTargetCase, type TargetSettings } from "./anchor-target.ts";
import { dispatchLatency } from "./dispatch-latency.ts";
import eightSchools from "../examples/posteriordb/eight_schools-eight_schools_noncentered.ts";

const args = process.argv.slice(2);
const opt = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1]! : fallback;
};
const dataDir = opt("data", "/tmp/anchor-data");
const backend = opt("backend", "vulkan");
const dtype = opt("dtype", "f32") as "f32" | "f64";
const cases = opt("cases", "8s,lr,many,hier").split(",");
const reps = Number(opt("reps", "2"));
const shapeOpt = opt("shape", "auto");
// Device shape's controller: auto, thread, or a workgroup size; the workgroup shape's threads per chain.
const controllerOpt = opt("controller", "auto");
const workgroupOpt = opt("workgroup", "");
const iterationsOpt = opt("iterations", "");
const groupsOpt = Number(opt("groups", "1"));
const dataPrecision = opt("data-precision", "exact") as DataPrecision;
// --gradient-only: time the batched gradients alone; --gradient-limits 'JSON;JSON': once per set of
// render limits merged over the device's (experiments with the kernels' layouts).
const gradientOnly = args.includes("--gradient-only");
// --gradient-separate: also time the batched gradient with every kernel its own dispatch (none
// merged), so that the gradient_kernel lines show where a merged dispatch's time goes.
const gradientSeparate = args.includes("--gradient-separate");
const digestOpt = args.includes("--digest");
// --profile (or --profile-controller): the NUTS kernel built with cycle counters; each rep prints
// where its calls' cycles went (a kernel_profile line: the device shape's controller calls, the
// fused shapes' leapfrogs; slower than the plain build).
const profileKernel = args.includes("--profile") || args.includes("--profile-controller");
// --fresh-device: every rep opens its own device instead of the one the last rep left open.
const freshDevice = args.includes("--fresh-device");
const gradientLimits: Partial<RenderLimits>[] = opt("gradient-limits", "{}").split(";").map((j) => JSON.parse(j) as Partial<RenderLimits>);
if (dataPrecision !== "exact" && dataPrecision !== "f16") throw new Error(`--data-precision ${dataPrecision}: use exact or f16`);

const logistic = anchorLogistic;

function logisticData(name: string) {
  const index = JSON.parse(readFileSync(join(dataDir, "index.json"), "utf8"))[name];
  const N: number = index.N, D: number = index.D;
  const f32 = (file: string) => {
    const b = readFileSync(join(dataDir, file));
    return new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  };
  // The raw files as typed arrays, as NumPyro's side reads them into arrays before its timing:
  // X in row-major order, which compileModel takes as it is.
  return { N, D, X: f32(`${name}.X.f32`), y: f32(`${name}.y.f32`) };
}

function hierData(name: string) {
  const index = JSON.parse(readFileSync(join(dataDir, "index.json"), "utf8"))[name];
  const raw = (file: string) => {
    const b = readFileSync(join(dataDir, `${name}.${file}`));
    return file.endsWith(".i32") ? new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4) : new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  };
  return { N: index.N as number, J: index.J as number, g: raw("g.i32"), x: raw("x.f32"), u: raw("u.f32"), y: raw("y.f32") };
}

async function runCase(name: string, compiled: () => CompiledModel, chains: number, anchorWarmup: number, anchorDraws: number) {
  // --iterations W,D shortens a case for slow backends (the JSON says so); the anchors use their own.
  const [warmup, draws] = iterationsOpt ? iterationsOpt.split(",").map(Number) as [number, number] : [anchorWarmup, anchorDraws];
  // The diagnostics of every rep wait until all reps have run: computed between reps they kept
  // the device idle for seconds (1024 chains' ESS), long enough for its clocks to fall, so the
  // next rep began slow (bench/RESULTS.md); NumPyro's loop has no such gap.
  const finished: (() => void)[] = [];
  for (let rep = 0; rep < reps; rep++) {
    const t0 = performance.now();
    const m = compiled();
    const tChecked = performance.now();
    // The host's evaluations see the data as the device stores them (rounded under --data-precision f16).
    const density = await modelDensity(backend === "vulkan" ? roundedDataModel(m, dataPrecision) : m);
    const tDensity = performance.now();
    const settings = { chains, warmup, draws, seed: 1000 + rep, maxDepth: 10 };
    let runner: Pick<GpuNuts, "plan" | "factory" | "hostDensity" | "dispose" | "counters" | "shape" | "profile"> | undefined;
    let device = "CPU (compiled JavaScript, f64)";
    const prepare = (n: number) =>
      prepareGpuNuts(m, {
        chains: n, maxDepth: 10, dtype, iterationsPerSubmit: 100, dataPrecision,
        ...(shapeOpt === "auto" ? {} : { shape: shapeOpt as ExecutionShape }),
        ...(controllerOpt === "auto" ? {} : { controller: controllerOpt.startsWith("thread") ? { kind: "thread" as const, ...(controllerOpt.includes(":") ? { group: Number(controllerOpt.split(":")[1]) } : {}) } : { kind: "workgroup" as const, workgroup: Number(controllerOpt.split(":")[0]), ...(controllerOpt.includes(":") ? { epilogue: controllerOpt.endsWith(":epilogue") } : {}) } }),
        ...(workgroupOpt ? { workgroup: Number(workgroupOpt) } : {}),
        ...(profileKernel ? { profile: true } : {}),
      });
    if (backend === "vulkan" && groupsOpt > 1) {
      const sizes = chainGroupSizes(chains, groupsOpt);
      const parts: GpuNuts[] = [];
      for (const n of sizes) parts.push(await prepare(n));
      const split = splitRunner(parts);
      runner = {
        ...split,
        shape: parts[0]!.shape,
        // Read at the end of the rep: the groups' counters summed (the longest wait, the longest of theirs).
        get counters() { return sumCounters(parts.map((p) => p.counters)); },
      };
      device = `${parts[0]!.device} ×${sizes.length} managers`;
    } else if (backend === "vulkan") {
      const one = await prepare(chains);
      runner = one;
      device = one.device;
    }
    const tCompiled = performance.now();
    const res = !runner
      ? sample(density, settings)
      // As `ppl sample` runs it: waiting for the device off the thread, so that sampling blocks
      // run while the host records the block before.
      : await sampleAsync(runner.hostDensity(density), { ...settings, transitionRunner: runner, yieldEveryMs: 1000 });
    const wall = (performance.now() - t0) / 1000;
    const profile = runner?.profile?.();
    if (profile) {
      const parts = Object.fromEntries(profile.parts.map((p) => [p.part, { cycles_per_call: Math.round(p.cyclesPerCall), share: +p.share.toFixed(3) }]));
      console.log(JSON.stringify({ case: name, rep, bench: "kernel_profile", shape: runner?.shape, calls: profile.calls, parts }));
    }
    runner?.dispose();
    if (freshDevice) closeIdleDevices();
    const counters = runner && { ...pickCounters(runner.counters), shape: runner.shape };
    const cpuEvals = density.evaluations;
    // Where the time before sampling went: the model and its data checked, the host density
    // built, the device's kernels and buffers prepared.
    const phases = { check_s: +((tChecked - t0) / 1000).toFixed(3), density_s: +((tDensity - tChecked) / 1000).toFixed(3), prepare_s: +((tCompiled - tDensity) / 1000).toFixed(3) };
    finished.push(() => report(rep, res, wall, (tCompiled - t0) / 1000, phases, device, counters, cpuEvals));
  }
  finished.forEach((f) => f());

  function report(rep: number, res: Awaited<ReturnType<typeof sample>>, wall: number, compileSeconds: number, phases: Record<string, number>, device: string, runner: (ReturnType<typeof pickCounters> & { shape: string }) | undefined, cpuEvals: number) {
    let minEss = Infinity;
    for (let j = 0; j < res.dim; j++) {
      const perChain = res.draws.map((d) => {
        const out = new Float64Array(draws);
        for (let i = 0; i < draws; i++) out[i] = d[i * res.dim + j]!;
        return out;
      });
      minEss = Math.min(minEss, essBulk(perChain));
    }
    const gradEvals = res.gradientEvaluations.reduce((a, b) => a + b, 0);
    const sampleSeconds = res.timing.warmupSeconds + res.timing.samplingSeconds;
    const waitSeconds = runner?.waitSeconds;
    console.log(JSON.stringify({
      case: name, rep, backend, dtype: backend === "vulkan" ? dtype : "f64", data_precision: backend === "vulkan" ? dataPrecision : "exact", chains, warmup, draws,
      wall_s: +wall.toFixed(3), compile_s: +compileSeconds.toFixed(3), ...phases, sample_s: +sampleSeconds.toFixed(3),
      min_ess_bulk: +minEss.toFixed(1), ess_per_s: +(minEss / wall).toFixed(1),
      grad_evals: gradEvals, grad_evals_per_s: Math.round(gradEvals / sampleSeconds),
      divergences: res.stats.reduce((a, s) => a + s.divergent.reduce((x, y) => x + y, 0), 0),
      cpu_density_evals: cpuEvals, submits: runner?.submits, device_steps: runner?.steps, sequences: runner?.sequences, record_s: runner?.recordSeconds === undefined ? undefined : +runner.recordSeconds.toFixed(3),
      wait_s: waitSeconds === undefined ? undefined : +waitSeconds.toFixed(3),
      longest_wait_s: runner === undefined ? undefined : +runner.longestWaitSeconds.toFixed(4), longest_wait_steps: runner?.longestWaitSteps, blocks_ahead: runner?.blocksAhead, needed_steps: runner?.neededSteps,
      // The host's own time while sampling: everything but the waits for the device (with blocks
      // started ahead, part of a wait overlaps the host's recording, so this is a lower bound).
      host_s: waitSeconds === undefined ? undefined : +(sampleSeconds - waitSeconds).toFixed(3), device, shape: runner?.shape ?? "cpu",
      ...(digestOpt ? { digest: runDigest(res) } : {}),
    }));
  }
}

/** The counters of several runners on one device as one runner's. */
function sumCounters(all: readonly GpuNuts["counters"][]): GpuNuts["counters"] {
  const total = (f: (c: GpuNuts["counters"]) => number) => all.reduce((a, c) => a + f(c), 0);
  const longest = all.reduce((a, c) => (c.longestWaitSeconds > a.longestWaitSeconds ? c : a));
  return {
    submits: total((c) => c.submits), steps: total((c) => c.steps), sequences: total((c) => c.sequences),
    recordSeconds: total((c) => c.recordSeconds), waitSeconds: total((c) => c.waitSeconds), blocksAhead: total((c) => c.blocksAhead), neededSteps: total((c) => c.neededSteps),
    longestWaitSeconds: longest.longestWaitSeconds, longestWaitSteps: longest.longestWaitSteps,
  };
}

/** The runner's counters as they stand at the end of a rep (the runner itself is disposed then). */
function pickCounters(c: GpuNuts["counters"]) {
  const { submits, steps, sequences, recordSeconds, waitSeconds, longestWaitSeconds, longestWaitSteps, blocksAhead, neededSteps } = c;
  return { submits, steps, sequences, recordSeconds, waitSeconds, longestWaitSeconds, longestWaitSteps, blocksAhead, neededSteps };
}

/** The first 16 hex digits of a SHA-256 over every chain's draws, statistics and adapted step size and metric. */
function runDigest(res: Awaited<ReturnType<typeof sample>>): string {
  const h = createHash("sha256");
  const add = (a: Float64Array) => h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  res.draws.forEach(add);
  for (const st of res.stats) [st.lp, st.acceptStat, st.stepSize, st.treeDepth, st.nLeapfrog, st.divergent, st.energy].forEach(add);
  for (const a of res.adaptation) add(Float64Array.of(a.stepSize, ...a.invMetric));
  add(Float64Array.from(res.gradientEvaluations));
  return h.digest("hex").slice(0, 16);
}

if (backend === "vulkan" && usableDevices().length === 0) throw new Error("no Vulkan device");
const esData = JSON.parse(readFileSync(join(dataDir, "index.json"), "utf8")).eight_schools;
const targetEss = Number(opt("target-ess", "0"));
// In the target mode the anchors' fixed-length runs and batched gradients are left out.
const fixedCases = targetEss > 0 ? [] : cases;
if (targetEss > 0) await runTargets();
if (fixedCases.includes("8s")) if (!gradientOnly) await runCase("eight_schools_nc", () => compileModel(eightSchools, esData), 4, 1000, 1000);
if (fixedCases.includes("lr")) {
  const d = logisticData("logistic_n100k_d100");
  if (!gradientOnly) await runCase("logistic_n100k_d100", () => compileModel(logistic, d), 4, 1000, 1000);
  if (backend === "vulkan") await timeBatchedGradient("logistic_n100k_d100", compileModel(logistic, d), 4);
}
if (fixedCases.includes("many")) {
  const d = logisticData("logistic_n1k_d10");
  const chains = Number(opt("many-chains", "1024"));
  if (!gradientOnly) await runCase("logistic_n1k_d10_x1024chains", () => compileModel(logistic, d), chains, 500, 500);
  if (backend === "vulkan") await timeBatchedGradient("logistic_n1k_d10_x1024chains", compileModel(logistic, d), chains);
}
if (fixedCases.includes("walk")) {
  // A long time series (not among NumPyro's anchors, so never in the default cases): its batched
  // gradient only, a reverse cumulative sum over 100k steps a chain.
  if (backend === "vulkan") await timeBatchedGradient("walk_t100k", syntheticWalk(Number(opt("walk-steps", "100000"))), 4);
}
if (fixedCases.includes("hier")) {
  const d = hierData("hier_n100k_j2000");
  if (!gradientOnly) await runCase("hier_n100k_j2000", () => compileModel(anchorHier, d), 4, 1000, 1000);
  if (backend === "vulkan") await timeBatchedGradient("hier_n100k_j2000", compileModel(anchorHier, d), 4);
}

/**
 * Time one batched gradient of all chains (the device shape's per-leapfrog kernels, without the
 * controller): `evals` evaluations recorded in one sequence, median of 5 submits. The floor is
 * the bytes of the data read twice (forward and backward pass) at the device's bandwidth; the
 * floor with a dispatch adds the measured cost of one dependent dispatch (bench/dispatch-latency.ts).
 */
async function timeBatchedGradient(name: string, m: CompiledModel, chains: number) {
  for (const limits of gradientLimits) await timeBatchedGradientWith(name, m, chains, limits);
  if (gradientSeparate) await timeBatchedGradientWith(name, m, chains, {}, undefined, true);
}

async function timeBatchedGradientWith(
  name: string, m: CompiledModel, chains: number, overrides: Partial<RenderLimits>, evals = Number(opt("gradient-evals", "200")), separate = false,
) {
  const manager = new VulkanManager();
  const g = await batchedGradient(manager, m, chains, dtype, { ...limitsOf(manager.device), ...overrides }, dataPrecision, { separate });
  const s = manager.sequence();
  for (let i = 0; i < evals; i++) for (const d of g.step) s.dispatch(d.algorithm, d.buffers, d.groups);
  const time = () => {
    const times: number[] = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      s.submitSync();
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[3]! / evals;
  };
  // Positions where the sampler goes: a fixed pseudo-random point with entries in (-1, 1) (the
  // density's special functions take data-dependent paths, so all-zero positions would flatter them).
  const D = m.q.size;
  let state = 12345;
  const q = Array.from({ length: chains * D }, () => ((state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32) * 2 - 1);
  g.q.write(dtype === "f64" ? Float64Array.from(q) : Float32Array.from(q));
  const ms = time();
  // The log densities and gradients at that point, summed: layouts of the same gradient must agree
  // (to rounding), which checks a layout's kernels on this device.
  const values = (buf: { read(): ArrayBuffer }) => (dtype === "f64" ? new Float64Array(buf.read()) : new Float32Array(buf.read()));
  const sumOf = (v: ArrayLike<number>) => Array.from(v).reduce((a, x) => a + x, 0);
  const check = { lp_sum: sumOf(values(g.lp)), grad_abs_sum: sumOf(Array.from(values(g.grad), Math.abs)) };
  // Each kernel alone, `evals` times in a row (with the barrier between them): where a gradient's
  // time goes. A kernel repeated reads its own inputs again, so its time is that of one evaluation.
  const perKernel = g.step.map((d) => {
    const one = manager.sequence();
    for (let i = 0; i < evals; i++) one.dispatch(d.algorithm, d.buffers, d.groups);
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = performance.now();
      one.submitSync();
      times.push(performance.now() - t0);
    }
    one.destroy();
    return { kernel: d.label, groups: d.groups[0] * d.groups[1], us: +((times.sort((a, b) => a - b)[2]! / evals) * 1e3).toFixed(2) };
  });
  g.q.write(dtype === "f64" ? new Float64Array(chains * D) : new Float32Array(chains * D));
  const msZero = time();
  // Data stored in 16 bits take 2 bytes an element: the floor halves with them.
  const half = new Set([...g.half].map((n) => n.attrs.name!));
  const dataBytes = Object.entries(m.dataBindings).reduce((acc, [k, v]) => acc + v.shape.reduce((a, b) => a * b, 1) * (half.has(k) ? 2 : dtype === "f64" ? 8 : 4), 0);
  // A gradient is at least one dispatch: where the data are small the bytes' floor is far below
  // that, so the floor a gradient can reach is the bytes' time plus one dependent dispatch.
  const dispatch = await dispatchLatency(manager);
  const floor = (2 * dataBytes) / 3.9e12 * 1e6;
  console.log(JSON.stringify({
    case: name, bench: "batched_gradient", limits: overrides, ...(separate ? { separate } : {}), chains, dtype, data_precision: dataPrecision, half_data: [...half], kernels_per_gradient: g.step.length, kernels_total: g.kernels,
    us_per_gradient: +(ms * 1e3).toFixed(2), us_per_gradient_at_zero: +(msZero * 1e3).toFixed(2), floor_us_at_3_9TBps: +floor.toFixed(2),
    dependent_dispatch_us: +dispatch.usPerDispatch.toFixed(2), floor_us_with_a_dispatch: +(floor + dispatch.usPerDispatch).toFixed(2),
    times_floor_with_a_dispatch: +((ms * 1e3) / (floor + dispatch.usPerDispatch)).toFixed(2),
    ...check, subgroup: manager.device.subgroup,
  }));
  for (const k of perKernel) console.log(JSON.stringify({ case: name, bench: "gradient_kernel", ...k }));
  s.destroy();
  g.dispose();
  manager.destroy();
}

/** --target-ess: every configuration of --runs on every case of --cases, one after another. */
async function runTargets() {
  const [blockFew, blockMany] = opt("blocks", "100,20").split(",").map(Number) as [number, number];
  const runs = parseRuns(opt("runs", "nuts:4:1000,nuts:1024:500,chees:4096:300,meads:4096:300"));
  // A repetition's cap: --max-seconds, and no more than an equal share of the budget left.
  const started = performance.now(), budget = Number(opt("budget-seconds", "Infinity")), maxSeconds = Number(opt("max-seconds", "300"));
  let repsLeft = runs.length * reps * cases.filter((c) => ["8s", "lr", "many", "hier"].includes(c)).length;
  const cap = () => Math.min(maxSeconds, Math.max(5, (budget - (performance.now() - started) / 1000) / Math.max(1, repsLeft--)));
  const settings: TargetSettings = {
    target: targetEss, blockFew, blockMany, superchains: Number(opt("superchains", "32")),
    maxDraws: Number(opt("max-draws", "20000")), maxDrawsMany: Number(opt("max-draws-many", "2000")), maxSeconds: cap,
    backend: backend as "vulkan" | "cpu", dtype, dataPrecision, reps,
  };
  // Each case's files are read once, before its runs (as NumPyro's side reads them before timing).
  const lr = (file: string) => {
    const d = logisticData(file);
    return () => compileModel(logistic, d);
  };
  const anchors: [string, string, () => () => CompiledModel][] = [
    ["8s", "eight_schools_nc", () => () => compileModel(eightSchools, esData)],
    ["lr", "logistic_n100k_d100", () => lr("logistic_n100k_d100")],
    ["many", "logistic_n1k_d10", () => lr("logistic_n1k_d10")],
    ["hier", "hier_n100k_j2000", () => {
      const d = hierData("hier_n100k_j2000");
      return () => compileModel(anchorHier, d);
    }],
  ];
  for (const [key, name, load] of anchors) {
    if (!cases.includes(key)) continue;
    const compiled = load();
    for (const run of runs) await runTargetCase(name, compiled, run, settings);
  }
}

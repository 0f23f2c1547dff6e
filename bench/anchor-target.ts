/**
 * bench/gpu-anchors.ts --target-ess N: wall time to bulk ESS ≥ N on every coordinate (and nested
 * R-hat < 1.01 where the chains form superchains) for one anchor and one sampler configuration,
 * sampled as `ppl sample` samples it (sampleAsync, the GPU's prepared runner), checked in fixed
 * blocks by bench/target-blocks.ts. What is timed is written down in docs/target-ess-benchmark.md.
 * Prints one JSON line per repetition (rep 0 includes building the kernels, rep 1 finds them cached).
 */
import { modelDensity, sampleAsync, type CompiledModel, type DrawInfo, type ModelDensity } from "../packages/ppl/src/index.ts";
import type { PlannedRunner } from "../packages/ppl/src/runner.ts";
import { prepareGpuNuts, prepareRun, roundedDataModel, type DataPrecision, type PlacedPlan } from "../packages/ppl-vulkan/src/index.ts";
import { TargetBlocks } from "./target-blocks.ts";

/** The samplers the mode runs. */
export type TargetMethod = "nuts" | "chees" | "meads";

/** One sampler configuration: the method, its chains and its warmup iterations. */
export interface TargetRun {
  readonly method: TargetMethod;
  readonly chains: number;
  readonly warmup: number;
}

/** What every configuration shares: the target, the blocks, the caps and where it runs. */
export interface TargetSettings {
  readonly target: number;
  /** Draws a chain per block: runs of at most FEW_CHAINS chains, and runs of more. */
  readonly blockFew: number;
  readonly blockMany: number;
  /** Superchains (K) of the runs of more than FEW_CHAINS chains, for nested R-hat. */
  readonly superchains: number;
  /** Caps: draws a chain (runs of at most FEW_CHAINS chains, and of more), and wall seconds of the next repetition (then the line says the target was not reached). */
  readonly maxDraws: number;
  readonly maxDrawsMany: number;
  readonly maxSeconds: () => number;
  readonly backend: "vulkan" | "cpu";
  readonly dtype: "f32" | "f64";
  readonly dataPrecision: DataPrecision;
  readonly reps: number;
}

/** Above this many chains a run is a many-chain run: short blocks, chains started in superchains, nested R-hat. */
export const FEW_CHAINS = 16;

/**
 * A many-chain run's first check holds at least this many draws a chain: with 5 draws a split
 * chain the ESS estimate is (chains × draws) / 2 at most whatever the autocorrelation
 * (docs/many-chain-hmc.md), so 64 chains of 10 draws would "reach" ESS 320 by construction.
 */
export const MANY_CHAIN_FIRST_CHECK = 20;

/** Parses `nuts:4:1000,chees:4096:300` (method:chains:warmup) into runs. */
export function parseRuns(spec: string): TargetRun[] {
  return spec.split(",").map((part) => {
    const [method, chains, warmup] = part.split(":");
    if ((method !== "nuts" && method !== "chees" && method !== "meads") || !(Number(chains) >= 1) || !(Number(warmup) >= 0)) {
      throw new Error(`--runs: '${part}' is not method:chains:warmup with method nuts, chees or meads (e.g. nuts:4:1000,chees:4096:300)`);
    }
    return { method, chains: Number(chains), warmup: Number(warmup) };
  });
}

/** Names of the unconstrained coordinates, Stan style (a vector's entries 1-based). */
export function coordinateNames(m: CompiledModel): string[] {
  return m.paramInfo.flatMap((p) => (p.unconstrainedSize === 1 ? [p.name] : Array.from({ length: p.unconstrainedSize }, (_, k) => `${p.name}[${k + 1}]`)));
}

// Where one repetition samples: the density, on the GPU the prepared runner, and what to say about it.
interface Placed {
  readonly density: ModelDensity;
  readonly runner?: PlannedRunner;
  readonly device: string;
  readonly shape: string;
  dispose(): void;
}

// The GPU's many-chain methods come through the CLI's path: prepareRun with the plan's transitions
// on the host (RunPlan.transitions: the device serves the batched gradient), then sampleAsync with
// the method. Where the device cannot (a build without that path, a device that refuses the
// kernels), preparing or starting fails before any iteration, and the line says "not available"
// with the reason.
async function place(m: CompiledModel, run: TargetRun, s: TargetSettings, block: number): Promise<Placed> {
  if (s.backend === "cpu") return { density: await modelDensity(m), device: "CPU (compiled JavaScript, f64)", shape: "cpu", dispose: () => undefined };
  if (run.method === "nuts") {
    const density = await modelDensity(roundedDataModel(m, s.dataPrecision));
    const gpu = await prepareGpuNuts(m, { chains: run.chains, maxDepth: 10, dtype: s.dtype, iterationsPerSubmit: Math.min(100, block), dataPrecision: s.dataPrecision });
    return { density: gpu.hostDensity(density), runner: gpu, device: gpu.device, shape: gpu.shape, dispose: () => gpu.dispose() };
  }
  const plan: PlacedPlan = { backend: "vulkan", chains: run.chains, maxDepth: 10, metric: "diag", dtype: s.dtype, dataPrecision: s.dataPrecision, transitions: "host" };
  const prepared = await prepareRun(m, plan);
  return {
    density: prepared.density,
    ...(prepared.transitionRunner ? { runner: prepared.transitionRunner } : {}),
    device: prepared.detail ?? "vulkan",
    shape: prepared.transitionRunner?.plan.shape ?? "host",
    dispose: () => prepared.dispose(),
  };
}

/** Runs one configuration on one anchor for every repetition; prints a JSON line each. */
export async function runTargetCase(name: string, compiled: () => CompiledModel, run: TargetRun, s: TargetSettings): Promise<void> {
  const many = run.chains > FEW_CHAINS;
  const block = many ? s.blockMany : s.blockFew;
  const superchains = many ? s.superchains : undefined;
  const head = { case: name, bench: "target_ess", method: run.method, chains: run.chains, superchains: superchains ?? null, block, warmup: run.warmup, target: s.target, backend: s.backend, dtype: s.backend === "vulkan" ? s.dtype : "f64" };
  for (let rep = 0; rep < s.reps; rep++) {
    // A configuration that fails says why and leaves the device to the next one: the record is one command.
    const line = await targetRep(compiled, run, s, rep, block, superchains).catch((e: unknown) => ({ available: true, reached: false, stopped: "error", error: firstLine(e) }));
    console.log(JSON.stringify({ ...head, rep, ...line }));
    if (line.available === false || line.stopped === "error") return;
  }
}

// One repetition: wall time from its start (the model checked, the density and the GPU's kernels
// built, initialization, warmup) to the end of the check that met the target.
async function targetRep(compiled: () => CompiledModel, run: TargetRun, s: TargetSettings, rep: number, block: number, superchains: number | undefined): Promise<Record<string, unknown>> {
  const t0 = performance.now();
  const cap = s.maxSeconds();
  const m = compiled();
  let placed: Placed;
  try {
    placed = await place(m, run, s, block);
  } catch (e) {
    return { available: false, reason: firstLine(e) };
  }
  const tPrepared = performance.now();
  const blocks = new TargetBlocks(s.target, block, coordinateNames(m), run.chains, superchains, superchains !== undefined ? MANY_CHAIN_FIRST_CHECK : block);
  const stop = new AbortController();
  let firstDraw: number | null = null, metAt: number | null = null, timedOut = false, divergences = 0, started = false;
  const onDraw = (d: DrawInfo) => {
    started = true;
    if ((performance.now() - t0) / 1000 > cap) {
      timedOut = true;
      stop.abort();
      return;
    }
    if (d.warmup || blocks.done) return;
    firstDraw ??= performance.now();
    if (d.divergent) divergences++;
    if (blocks.add(d.chain, d.position)) {
      metAt = performance.now();
      stop.abort();
    }
  };
  let res;
  try {
    res = await sampleAsync(placed.density, {
      chains: run.chains, warmup: run.warmup, draws: superchains !== undefined ? s.maxDrawsMany : s.maxDraws, seed: 1000 + rep, maxDepth: 10,
      ...(run.method !== "nuts" ? { method: run.method } : {}),
      ...(superchains !== undefined ? { superchainSize: run.chains / superchains } : {}),
      ...(placed.runner ? { transitionRunner: placed.runner } : {}),
      keepDraws: false, signal: stop.signal, onDraw, yieldEveryMs: 1000,
    });
  } catch (e) {
    // A method the GPU cannot run yet is refused before its first iteration.
    if (!started && run.method !== "nuts" && s.backend === "vulkan") return { available: false, reason: firstLine(e) };
    throw e;
  } finally {
    placed.dispose();
  }
  const end = metAt ?? performance.now();
  const last = blocks.met ?? blocks.checks.at(-1);
  const seconds = (a: number, b: number) => +((b - a) / 1000).toFixed(3);
  return {
    available: true, reached: blocks.met !== null, stopped: blocks.met !== null ? "target" : timedOut ? "max_seconds" : "max_draws", cap_s: +cap.toFixed(1),
    wall_s: seconds(t0, end), prepare_s: seconds(t0, tPrepared),
    warmup_s: firstDraw === null ? null : seconds(tPrepared, firstDraw), sampling_s: firstDraw === null ? null : seconds(firstDraw, end),
    check_s: +blocks.checkSeconds.toFixed(3), checks: blocks.checks.length, draws: last?.draws ?? 0,
    min_ess: last ? +last.minEss.toFixed(1) : null, min_ess_name: last?.minEssName ?? null,
    max_rhat_nested: last && superchains !== undefined ? +last.maxRhat.toFixed(4) : null, max_rhat_name: superchains !== undefined ? last?.maxRhatName ?? null : null,
    grad_evals: res.gradientEvaluations.reduce((a, b) => a + b, 0), divergences,
    device: placed.device, shape: placed.shape,
  };
}

function firstLine(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).split("\n")[0]!;
}

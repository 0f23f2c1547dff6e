import { availableParallelism } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { modelDensity, type ModelDensity } from "../density/model-density.ts";
import { essBulk } from "../diagnostics/ess.ts";
import { mcseMean } from "../diagnostics/mcse.ts";
import { contiguousSuperchains, rhatNested } from "../diagnostics/rhat-nested.ts";
import { mean, sd } from "../diagnostics/moments.ts";
import { compileModel, type CompiledModel } from "../model/compile.ts";
import { isModel, type Model } from "../model/model.ts";
import type { SamplingMethod } from "../sampler/methods/method.ts";
import type { PendingRunnerDecision } from "../sampler/result.ts";
import { sample, sampleAsync } from "../sampler/sample.ts";
import type { PlannedRunner } from "../sampler/transition-runner.ts";
import { checkParameter, type ParameterCheck } from "./pass-rule.ts";
import { folderOf, loadPosterior, modelsDir } from "./reference.ts";
import { posteriorSettings, type PosteriorSettings } from "./settings.ts";

/** The suite's default seed. */
export const DEFAULT_SEED = 20251129;

/** Options of {@link runPosterior}. */
export interface RunPosteriorOptions {
  /** Sampler seed (DEFAULT_SEED). */
  seed?: number;
  /** Folder of posterior folders (the suite folder that holds the posterior: folderOf(name)). */
  posteriordb?: string;
  /** Folder of the model files (modelsDir()). */
  models?: string;
  /** Overrides of the posterior's settings (e.g. a shorter run while exploring). */
  settings?: Partial<PosteriorSettings>;
  /** Initial points on the unconstrained scale, one per chain (e.g. Pathfinder's draws); default: uniform in (−2, 2). */
  init?: readonly Float64Array[];
  /** The model itself, instead of importing examples/posteriordb/<name>.ts (bundled programs). */
  model?: Model;
  /**
   * Runs the transitions elsewhere (a GPU): given the compiled model and the settings, returns the
   * sampler's transition runner, and optionally the density the sampler itself evaluates
   * (initialization, step-size searches) built from the f64 CPU one. A prepared GPU sampler
   * (`prepareGpuNuts`) is such a runner.
   */
  runner?: (compiled: CompiledModel, settings: PosteriorSettings) => Promise<PosteriorRunner>;
  /**
   * Start on the CPU sampler (the f64 density, a thread a chain up to the machine's cores) while
   * the runner is prepared, and move to it once it is ready and measures faster, as `ppl sample
   * --backend auto` does (SampleOptions.pendingRunner).
   */
  runnerPending?: boolean;
  /** With runnerPending: the CPU's projected seconds left beyond which the runner is prepared (PendingRunner.startAfterSeconds). */
  runnerStartAfterSeconds?: number;
  /** The sampling method, by name ("chees", "meads", …) or itself (SampleOptions.method); default NUTS. */
  method?: string | SamplingMethod<unknown>;
  /** Superchains (nested R-hat): the chains split into this many groups, each started from one point. */
  superchains?: number;
}

/** Where a posterior's transitions run when not on the CPU sampler. */
export interface PosteriorRunner extends PlannedRunner {
  hostDensity?(host: ModelDensity): ModelDensity;
  /** Most iterations the runner computes in one call (PreparedRunner.blockIterations). */
  blockIterations?: number;
  dispose(): void;
}

/** A parameter's worst value and which parameter it was. */
export interface Worst {
  readonly name: string;
  readonly value: number;
}

/** The outcome of one posterior. */
export interface PosteriorReport {
  readonly name: string;
  readonly pass: boolean;
  readonly seed: number;
  readonly settings: PosteriorSettings;
  /** Every reference parameter, checked. */
  readonly checks: readonly ParameterCheck[];
  /** Reference parameters the model does not report (each one fails the posterior). */
  readonly missing: readonly string[];
  /** The largest z-score. */
  readonly worstZ: Worst;
  /** The sd ratio furthest from 1 (on a log scale). */
  readonly worstSdRatio: Worst;
  readonly divergences: number;
  /** Gradient evaluations, all chains together. */
  readonly gradientEvaluations: number;
  /** Seconds for compile, sampling and checking. */
  readonly wallSeconds: number;
  /** Seconds inside the sampler (warmup + sampling). */
  readonly samplerSeconds: number;
  /** With runnerPending: what was measured, and whether the chains moved to the runner. */
  readonly pendingRunner?: PendingRunnerDecision;
  /** With a method: the lowest bulk ESS over the reference parameters. */
  readonly minEssBulk?: Worst;
  /** With superchains (at least 2): the highest nested R-hat over the reference parameters. */
  readonly maxRhatNested?: Worst;
}

/** Imports examples/posteriordb/<name>.ts and returns its default-exported model. */
export async function loadModel(name: string, dir: string = modelsDir()): Promise<Model> {
  const mod = (await import(pathToFileURL(join(dir, `${name}.ts`)).href)) as { default?: unknown };
  if (!isModel(mod.default)) throw new Error(`${name}.ts does not default-export a model`);
  return mod.default;
}

/**
 * Samples one posterior on the CPU backend and applies the pass rule to every reference
 * parameter, on the constrained draws that `density.generated` reports.
 */
export async function runPosterior(name: string, opts: RunPosteriorOptions = {}): Promise<PosteriorReport> {
  const t0 = performance.now();
  const posterior = loadPosterior(name, opts.posteriordb ?? folderOf(name));
  const seed = opts.seed ?? DEFAULT_SEED;
  const settings = { ...posteriorSettings(name, posterior.reference), ...opts.settings };
  const compiled = compileModel(opts.model ?? (await loadModel(name, opts.models ?? modelsDir())), posterior.data);
  const density = await modelDensity(compiled, { backend: "cpu" });
  const layer = layerOptions(opts, settings.chains);
  let result;
  if (opts.runner && opts.runnerPending) {
    const runner = opts.runner;
    // Started once the run is long enough to gain from the runner (PendingRunner.ready as a function).
    let pending: Promise<PosteriorRunner> | null = null;
    try {
      result = await sampleAsync(density, {
        ...settings, ...layer, seed, ...(opts.init ? { init: opts.init } : {}), threads: Math.min(availableParallelism(), settings.chains),
        pendingRunner: {
          ...(opts.runnerStartAfterSeconds !== undefined ? { startAfterSeconds: opts.runnerStartAfterSeconds } : {}),
          ready: () => {
            pending = runner(compiled, settings);
            // Settled by the run; a failure is its decision's to report.
            pending.catch(() => {});
            return pending.then((r) => ({
              transitionRunner: r, density: r.hostDensity ? r.hostDensity(density) : density, ...(r.blockIterations !== undefined ? { blockIterations: r.blockIterations } : {}),
            }));
          },
        },
      });
    } finally {
      void (pending as Promise<PosteriorRunner> | null)?.then((r) => r.dispose(), () => {});
    }
  } else {
    const runner = opts.runner ? await opts.runner(compiled, settings) : null;
    try {
      result = sample(runner?.hostDensity ? runner.hostDensity(density) : density, { ...settings, ...layer, seed, ...(opts.init ? { init: opts.init } : {}), ...(runner ? { transitionRunner: runner } : {}) });
    } finally {
      runner?.dispose();
    }
  }

  // Constrained draws, [name][chain][draw].
  const names = compiled.constrainedNames();
  const columns = new Map<string, Float64Array[]>(names.map((n) => [n, []]));
  for (const chain of result.draws) {
    const perName = names.map(() => new Float64Array(result.drawsDone));
    for (let i = 0; i < result.drawsDone; i++) {
      const values = density.generated(chain.subarray(i * result.dim, (i + 1) * result.dim));
      for (let k = 0; k < names.length; k++) perName[k]![i] = values[k]!;
    }
    names.forEach((n, k) => columns.get(n)!.push(perName[k]!));
  }

  const checks: ParameterCheck[] = [];
  const missing: string[] = [];
  for (const [param, ref] of Object.entries(posterior.reference.params)) {
    const draws = columns.get(param);
    if (!draws) {
      missing.push(param);
      continue;
    }
    const pooled = concatAll(draws);
    checks.push(checkParameter(param, { mean: mean(pooled), sd: sd(pooled), mcseMean: mcseMean(draws) }, ref));
  }
  const labels = opts.superchains !== undefined && opts.superchains >= 2 ? contiguousSuperchains(settings.chains, opts.superchains) : null;
  const referenced = checks.map((c) => ({ name: c.name, draws: columns.get(c.name)! }));
  const divergences = result.stats.reduce((s, st) => s + st.divergent.reduce((a, b) => a + b, 0), 0);
  return {
    name,
    pass: missing.length === 0 && checks.every((c) => c.pass),
    seed,
    settings,
    checks,
    missing,
    worstZ: worstOf(checks, (c) => c.z, (c) => c.z),
    worstSdRatio: worstOf(checks, (c) => c.sdRatio, (c) => Math.abs(Math.log(c.sdRatio))),
    divergences,
    gradientEvaluations: result.gradientEvaluations.reduce((a, b) => a + b, 0),
    wallSeconds: (performance.now() - t0) / 1000,
    samplerSeconds: result.timing.warmupSeconds + result.timing.samplingSeconds,
    ...(result.pendingRunner ? { pendingRunner: result.pendingRunner } : {}),
    ...(opts.method !== undefined ? { minEssBulk: extremeOf(referenced, (d) => essBulk(d), -1) } : {}),
    ...(labels ? { maxRhatNested: extremeOf(referenced, (d) => rhatNested(d, labels), 1) } : {}),
  };
}

// The run's method and superchain size, checked: superchains must divide the chains.
function layerOptions(opts: RunPosteriorOptions, chains: number): { method?: string | SamplingMethod<unknown>; superchainSize?: number } {
  const k = opts.superchains;
  if (k !== undefined && (!Number.isSafeInteger(k) || k < 1 || chains % k !== 0)) {
    throw new RangeError(`superchains: ${k} does not divide the ${chains} chains; choose a divisor of the chain count`);
  }
  return { ...(opts.method !== undefined ? { method: opts.method } : {}), ...(k !== undefined ? { superchainSize: chains / k } : {}) };
}

// The largest (sign 1) or smallest (sign −1) value of f over the parameters; NaN counts as the extreme.
function extremeOf(params: readonly { name: string; draws: Float64Array[] }[], f: (d: Float64Array[]) => number, sign: 1 | -1): Worst {
  let worst: Worst = { name: "", value: NaN };
  let best = -Infinity;
  for (const p of params) {
    const v = f(p.draws);
    const b = Number.isNaN(v) ? Infinity : sign * v;
    if (b > best) {
      best = b;
      worst = { name: p.name, value: v };
    }
  }
  return worst;
}

function concatAll(chains: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(chains.reduce((s, c) => s + c.length, 0));
  let at = 0;
  for (const c of chains) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

// The check with the largest badness; NaN counts as the worst of all.
function worstOf(checks: readonly ParameterCheck[], value: (c: ParameterCheck) => number, badness: (c: ParameterCheck) => number): Worst {
  let worst: Worst = { name: "", value: NaN };
  let worstBad = -Infinity;
  for (const c of checks) {
    const b = Number.isNaN(badness(c)) ? Infinity : badness(c);
    if (b > worstBad) {
      worstBad = b;
      worst = { name: c.name, value: value(c) };
    }
  }
  return worst;
}

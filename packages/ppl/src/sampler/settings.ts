/**
 * What a run computes, as the caller asks for it (by concern: run lengths, where chains start, the
 * transition, warmup's adaptation) and resolved: defaults filled in, ranges checked. The resolved
 * settings are what a run used (output headers) and what a range of its chains runs with elsewhere.
 */
import { SamplerOptionError } from "./errors.ts";
import { Metric, type MetricKind } from "./metric.ts";
import type { SamplingMethod } from "./methods/method.ts";
import { defaultNutsSettings } from "./nuts.ts";
import { defaultWindows, windowEnds } from "./warmup/windows.ts";

/** Which transition kernel to run. */
export type SamplerKind = "nuts" | "hmc";

/** How long a run is: its chains and iterations. */
export interface RunLengthOptions {
  /** Number of chains (4). */
  chains?: number;
  /** Warmup iterations (1000). */
  warmup?: number;
  /** Post-warmup draws per chain (1000). */
  draws?: number;
}

/** Where the chains start: their random streams and initial points. */
export interface StartOptions {
  /** Integer seed in [0, 2^53) (random when absent; reported in the result). */
  seed?: number;
  /** Chain id of the first chain in the random streams (0); lets chains be split across runs. */
  firstChain?: number;
  /** Random initial values are uniform in (−initRadius, initRadius) (2). */
  initRadius?: number;
  /** Initial unconstrained point, shared by all chains or one per chain. */
  init?: Float64Array | readonly Float64Array[];
  /**
   * Chains per superchain (nested R-hat): chains with ids k·size … (k+1)·size − 1 search their
   * initial point with the stream of the superchain's first chain, so they start from one point.
   */
  superchainSize?: number;
}

/** The transition: which kernel, and its own settings. */
export interface TransitionOptions {
  /** Transition kernel ("nuts"). */
  sampler?: SamplerKind;
  /**
   * A sampling method of the inference layer (methods/), in place of `sampler`: a shipped one by
   * name ("nuts", "hmc", "random-walk") or a method itself. Worker threads find a shipped method by
   * its name and import any other from its `source`; one without a source runs in the calling thread.
   */
  method?: SamplingMethod<unknown> | string;
  /** NUTS maximum tree depth (10). */
  maxDepth?: number;
  /** Energy error H − H0 beyond which a transition is divergent (Stan's 1000). */
  maxDeltaH?: number;
  /** Leapfrog steps of static HMC (10). */
  hmcSteps?: number;
}

/** Warmup's adaptation of the step size and metric, and where it starts. */
export interface AdaptationOptions {
  /** Metric form ("diag"). */
  metric?: MetricKind;
  /** Target accept_stat of dual averaging (0.8). */
  adaptDelta?: number;
  /** Initial step size (1). */
  stepSize?: number;
  /** Initial inverse metric (unit): length dim for diag, dim×dim row-major for dense; shared or per chain. */
  invMetric?: Float64Array | readonly Float64Array[];
}

/** Everything that decides a run's draws (with the density): the options that settings resolve. */
export interface SettingsOptions extends RunLengthOptions, StartOptions, TransitionOptions, AdaptationOptions {}

/** The resolved settings a run used (for output headers). */
export interface ResolvedSampleSettings {
  readonly chains: number;
  readonly warmup: number;
  readonly draws: number;
  readonly seed: number;
  readonly firstChain: number;
  readonly metric: MetricKind;
  readonly adaptDelta: number;
  readonly maxDepth: number;
  readonly maxDeltaH: number;
  readonly initRadius: number;
  readonly stepSize: number;
  readonly sampler: SamplerKind;
  readonly hmcSteps: number;
}

/** Checks that `value` is an integer in [min, max]; returns it. */
export function checkInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new SamplerOptionError(`${name} must be an integer in [${min}, ${max}], got ${value}`);
  }
  return value;
}

function checkPositive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new SamplerOptionError(`${name} must be positive and finite, got ${value}`);
  return value;
}

/** Fills in defaults and checks ranges. */
export function resolveSettings(options: SettingsOptions): ResolvedSampleSettings {
  const metric = options.metric ?? "diag";
  if (metric !== "diag" && metric !== "dense") throw new SamplerOptionError(`metric must be "diag" or "dense", got ${String(metric)}`);
  const sampler = options.sampler ?? "nuts";
  if (sampler !== "nuts" && sampler !== "hmc") throw new SamplerOptionError(`sampler must be "nuts" or "hmc", got ${String(sampler)}`);
  const adaptDelta = options.adaptDelta ?? 0.8;
  if (!(adaptDelta > 0 && adaptDelta < 1)) throw new SamplerOptionError(`adaptDelta must be in (0, 1), got ${adaptDelta}`);
  const initRadius = options.initRadius ?? 2;
  if (!(initRadius >= 0) || !Number.isFinite(initRadius)) {
    throw new SamplerOptionError(`initRadius must be finite and non-negative, got ${initRadius}`);
  }
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  return {
    chains: checkInteger("chains", options.chains ?? 4, 1, 2 ** 31),
    warmup: checkInteger("warmup", options.warmup ?? 1000, 0, 2 ** 31),
    draws: checkInteger("draws", options.draws ?? 1000, 0, 2 ** 31),
    seed: checkInteger("seed", seed, 0),
    firstChain: checkInteger("firstChain", options.firstChain ?? 0, 0, 2 ** 31),
    metric,
    adaptDelta,
    // 2^30 leaves is far beyond any use; the bound keeps leaf indices in 32 bits.
    maxDepth: checkInteger("maxDepth", options.maxDepth ?? 10, 1, 30),
    maxDeltaH: checkPositive("maxDeltaH", options.maxDeltaH ?? defaultNutsSettings.maxDeltaH),
    initRadius,
    stepSize: checkPositive("stepSize", options.stepSize ?? 1),
    sampler,
    hmcSteps: checkInteger("hmcSteps", options.hmcSteps ?? 10, 1, 2 ** 31),
  };
}

/** Picks chain c's entry from a shared-or-per-chain option, checking its length. */
export function perChain(
  name: string,
  value: Float64Array | readonly Float64Array[] | undefined,
  chains: number,
  length: number,
): (Float64Array | null)[] {
  if (value === undefined) return new Array<Float64Array | null>(chains).fill(null);
  const list = value instanceof Float64Array ? new Array<Float64Array>(chains).fill(value) : value;
  if (list.length !== chains) throw new SamplerOptionError(`${name} has ${list.length} entries, expected one per chain (${chains})`);
  return list.map((v, c) => {
    if (v.length !== length) throw new SamplerOptionError(`${name} for chain ${c + 1} has length ${v.length}, expected ${length}`);
    return v;
  });
}

/**
 * The options of chains first … first+count−1 of a run as a run of their own: the same resolved
 * settings (the seed included), firstChain moved along, and the per-chain initial values and
 * metrics of those chains. Such a run draws exactly those chains' draws (the streams are keyed by
 * chain id). Callbacks and the signal are left to the caller.
 */
export function chainRangeOptions(options: SettingsOptions, s: ResolvedSampleSettings, first: number, count: number): SettingsOptions {
  const part = (v: Float64Array | readonly Float64Array[] | undefined): Float64Array | readonly Float64Array[] | undefined =>
    v === undefined || v instanceof Float64Array ? v : v.slice(first, first + count);
  const init = part(options.init);
  const invMetric = part(options.invMetric);
  return {
    chains: count, warmup: s.warmup, draws: s.draws, seed: s.seed, firstChain: s.firstChain + first, metric: s.metric,
    adaptDelta: s.adaptDelta, maxDepth: s.maxDepth, maxDeltaH: s.maxDeltaH, initRadius: s.initRadius, stepSize: s.stepSize,
    sampler: s.sampler, hmcSteps: s.hmcSteps, ...(init ? { init } : {}), ...(invMetric ? { invMetric } : {}),
    ...(options.superchainSize !== undefined ? { superchainSize: options.superchainSize } : {}),
    // The method itself: a group sent to a worker thread is sent it by name or source (methods/method-source.ts).
    ...(options.method !== undefined ? { method: options.method } : {}),
  };
}

/** Checks the per-chain options of a run as SamplingRun's constructor does, without allocating the run. */
export function checkChainOptions(options: SettingsOptions, s: ResolvedSampleSettings, dim: number): void {
  checkInteger("density.dim", dim, 1);
  perChain("init", options.init, s.chains, dim);
  const metrics = perChain("invMetric", options.invMetric, s.chains, s.metric === "diag" ? dim : dim * dim);
  metrics.forEach((given, c) => {
    if (given && !new Metric(s.metric, dim).trySet(given)) {
      throw new SamplerOptionError(`invMetric for chain ${c + 1} is not finite and positive definite`);
    }
  });
}

/** The iterations after which warmup's host acts (the metric updates, then warmup's end): SamplingRun.hostSteps. */
export function hostStepsOf(warmup: number): number[] {
  return warmup > 0 ? [...windowEnds(warmup, defaultWindows).filter((t) => t < warmup - 1), warmup - 1] : [];
}

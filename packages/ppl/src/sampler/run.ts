/**
 * The sampling driver: C chains advance together, each a per-chain state
 * machine, all gradients of a round served by one batched logpGrad call.
 * Each chain adapts its own step size and metric, as Stan runs chains
 * independently. Randomness comes only from Philox streams keyed by
 * (seed, chain id, iteration, purpose), so any chain's run is reproducible on
 * its own (chain id = firstChain + row).
 */

import { ChainBatch, driveBatch } from "./batch.ts";
import { decideFallback, detached, fallbackIteration, reevaluated, trialSecondsPerGradient, type FallbackDecision, type RunnerFallback } from "./fallback.ts";
import type { PendingRunner, PendingRunnerDecision } from "./pending-runner.ts";
import type { BatchedDensity } from "./density.ts";
import { SamplerOptionError } from "./errors.ts";
import { HmcTransition } from "./hmc.ts";
import { InitialPointSearch } from "./initialize.ts";
import { Metric, type MetricKind, type MetricState } from "./metric.ts";
import { defaultNutsSettings, NutsTransition } from "./nuts.ts";
import { chainContext, type Transition, type TransitionStats } from "./transition.ts";
import { ChainAdaptation, type ChainAdaptationState } from "./warmup/adaptation.ts";
import { defaultDualAveraging, type DualAveragingSettings, type DualAveragingState } from "./warmup/dual-averaging.ts";
import { StepSizeSearch } from "./warmup/stepsize-search.ts";
import { defaultWindows, windowEnds } from "./warmup/windows.ts";
import { seedKey } from "../random/streams.ts";

/** Which transition kernel to run. */
export type SamplerKind = "nuts" | "hmc";

/** One iteration of one chain, handed to `onDraw` (warmup and sampling alike). */
export interface DrawInfo {
  /** Row of the chain in this run (0-based). */
  readonly chain: number;
  /** Chain id in the random streams (firstChain + chain). */
  readonly chainId: number;
  /** Global 0-based iteration: warmup iterations first. */
  readonly iteration: number;
  readonly warmup: boolean;
  /** Unconstrained position; a view valid only during the callback. */
  readonly position: Float64Array;
  readonly lp: number;
  readonly acceptStat: number;
  readonly stepSize: number;
  readonly treeDepth: number;
  readonly nLeapfrog: number;
  readonly divergent: boolean;
  readonly energy: number;
}

/** Options of {@link sample}; every field has Stan's default where Stan has one. */
export interface SampleOptions {
  /** Number of chains (4). */
  chains?: number;
  /** Warmup iterations (1000). */
  warmup?: number;
  /** Post-warmup draws per chain (1000). */
  draws?: number;
  /** Integer seed in [0, 2^53) (random when absent; reported in the result). */
  seed?: number;
  /** Chain id of the first chain in the random streams (0); lets chains be split across runs. */
  firstChain?: number;
  /** Metric form ("diag"). */
  metric?: MetricKind;
  /** Target accept_stat of dual averaging (0.8). */
  adaptDelta?: number;
  /** NUTS maximum tree depth (10). */
  maxDepth?: number;
  /** Energy error H − H0 beyond which a transition is divergent (Stan's 1000). */
  maxDeltaH?: number;
  /** Random initial values are uniform in (−initRadius, initRadius) (2). */
  initRadius?: number;
  /** Initial unconstrained point, shared by all chains or one per chain. */
  init?: Float64Array | readonly Float64Array[];
  /** Initial step size (1). */
  stepSize?: number;
  /** Initial inverse metric (unit): length dim for diag, dim×dim row-major for dense; shared or per chain. */
  invMetric?: Float64Array | readonly Float64Array[];
  /** Transition kernel ("nuts"). */
  sampler?: SamplerKind;
  /** Leapfrog steps of static HMC (10). */
  hmcSteps?: number;
  /** Called for every chain after every iteration, e.g. to stream CSV. */
  onDraw?: (draw: DrawInfo) => void;
  /** Called for every chain once its warmup is over, before its first sampling draw (chain = row in this run). */
  onAdapted?: (chain: number, adaptation: ChainAdaptationResult) => void;
  /**
   * Threads to spread the chains over (1, the default: every chain in the calling thread). With
   * more, {@link sampleAsync} samples every chain in the calling thread at once and, when its pace
   * projects more than half a second of work, hands groups of chains (with where they stand) to
   * worker threads that rebuild the density from its shared form (a density from modelDensity; the
   * data stay in shared memory). Every chain's draws are the same bits whichever thread runs it, and
   * a stop ends every chain after the same iteration.
   */
  threads?: number;
  /** Stops cleanly between iterations, keeping what was drawn. */
  signal?: AbortSignal;
  /**
   * Runs the transitions somewhere else (a GPU): given the run's settings and metrics, returns a
   * runner that advances every chain one iteration. Initialization, step-size searches and
   * adaptation stay here and use `density`.
   */
  transitionRunner?: TransitionRunnerFactory;
  /**
   * With a transition runner: after its first iterations, time trial iterations of the CPU sampler
   * on `fallback.density`, and move the chains to it when it takes a gradient clearly faster (see
   * fallback.ts). The result's `fallback` says what was measured.
   */
  fallback?: RunnerFallback;
  /**
   * sampleAsync only, without a transitionRunner: a runner still being prepared. The run starts on
   * this density (the CPU) and moves to the runner once it is ready and measures faster (see
   * pending-runner.ts); the result's `pendingRunner` says what was measured.
   */
  pendingRunner?: PendingRunner;
  /**
   * With a transitionRunner that computes blocks of iterations: the most iterations it may compute
   * in one call, asked before each block (a trial's short first blocks, see pending-runner.ts).
   */
  runnerBlockLimit?: () => number;
}

/** Seconds spent in a transition runner's calls, and the gradients its transitions took (all chains). */
export interface RunnerCost {
  readonly seconds: number;
  readonly gradients: number;
}

/** Per-chain statistics a transition runner fills in. */
export interface RunnerStats {
  acceptStat: number;
  treeDepth: number;
  nLeapfrog: number;
  divergent: boolean;
  energy: number;
}

/**
 * Advances every chain of a batch by one transition of iteration t, from and back into the batch
 * rows. A runner that waits for a device may also offer `runAsync`, which waits without blocking
 * the thread: sampleAsync uses it, so that runners on several devices (splitRunner) work at once.
 */
export interface TransitionRunner {
  run(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): void;
  runAsync?(t: number, stepSizes: Float64Array, batch: ChainBatch, stats: RunnerStats[]): Promise<void>;
}

/** What a transition runner is built from. */
export interface TransitionRunnerContext {
  readonly settings: ResolvedSampleSettings;
  readonly dim: number;
  /** Each chain's metric; adaptation updates them in place between iterations. */
  readonly metrics: readonly Metric[];
  /**
   * Warmup's step-size adaptation, for a runner that carries it on by itself over several warmup
   * iterations: the dual-averaging settings, each chain's state as the host has it now, and the
   * warmup iterations after which the host must act itself (a metric update and step-size search,
   * or the switch to the final step size), where such a runner's warmup blocks must end. The host
   * still makes the same updates from the accept statistics the runner reports.
   */
  readonly stepSizeAdaptation: {
    readonly settings: DualAveragingSettings;
    state(chain: number): DualAveragingState;
    readonly hostSteps: readonly number[];
  };
  /** The most iterations a block may have, asked before each block (SampleOptions.runnerBlockLimit); none: the runner's own. */
  readonly blockLimit?: () => number;
}

/** Makes the transition runner of a run. */
export type TransitionRunnerFactory = (ctx: TransitionRunnerContext) => TransitionRunner;

/** Per-draw sampler statistics of one chain (Stan's `__` columns), length = draws done. */
export interface ChainStats {
  readonly lp: Float64Array;
  readonly acceptStat: Float64Array;
  readonly stepSize: Float64Array;
  readonly treeDepth: Float64Array;
  readonly nLeapfrog: Float64Array;
  /** 1 for divergent, 0 otherwise. */
  readonly divergent: Float64Array;
  readonly energy: Float64Array;
}

/** Adaptation results of one chain. */
export interface ChainAdaptationResult {
  readonly stepSize: number;
  readonly metric: MetricKind;
  /** Inverse metric: diagonal (dim) or dense (dim×dim, row-major). */
  readonly invMetric: Float64Array;
}

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

/** Everything a run produced; arrays cover only what was drawn when aborted. */
export interface SampleResult {
  readonly dim: number;
  readonly settings: ResolvedSampleSettings;
  /** Per chain: draws × dim unconstrained positions, row per draw. */
  readonly draws: Float64Array[];
  readonly stats: ChainStats[];
  readonly adaptation: ChainAdaptationResult[];
  readonly warmupDone: number;
  readonly drawsDone: number;
  readonly aborted: boolean;
  /** Gradient evaluations per chain (init, step-size searches and transitions). */
  readonly gradientEvaluations: number[];
  /** With threads: the wall time of the run, split between warmup and sampling as the chains' own times are. */
  readonly timing: { readonly warmupSeconds: number; readonly samplingSeconds: number };
  /** Where the chains ran, for runs with more than one thread: the thread of each chain (0 = the calling thread, −1 = not started). */
  readonly threads?: { readonly used: number; readonly chainThread: readonly number[] };
  /** With options.fallback: what was measured, and whether the chains moved to the CPU. */
  readonly fallback?: FallbackDecision;
  /** With options.pendingRunner: what was measured, and whether the chains moved to the runner. */
  readonly pendingRunner?: PendingRunnerDecision;
}

function checkInteger(name: string, value: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
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
export function resolveSettings(options: SampleOptions): ResolvedSampleSettings {
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
function perChain(
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
export function chainRangeOptions(options: SampleOptions, s: ResolvedSampleSettings, first: number, count: number): SampleOptions {
  const part = (v: Float64Array | readonly Float64Array[] | undefined): Float64Array | readonly Float64Array[] | undefined =>
    v === undefined || v instanceof Float64Array ? v : v.slice(first, first + count);
  const init = part(options.init);
  const invMetric = part(options.invMetric);
  return {
    chains: count, warmup: s.warmup, draws: s.draws, seed: s.seed, firstChain: s.firstChain + first, metric: s.metric,
    adaptDelta: s.adaptDelta, maxDepth: s.maxDepth, maxDeltaH: s.maxDeltaH, initRadius: s.initRadius, stepSize: s.stepSize,
    sampler: s.sampler, hmcSteps: s.hmcSteps, ...(init ? { init } : {}), ...(invMetric ? { invMetric } : {}),
  };
}

/** Checks the per-chain options of a run as SamplingRun's constructor does, without allocating the run. */
export function checkChainOptions(options: SampleOptions, s: ResolvedSampleSettings, dim: number): void {
  checkInteger("density.dim", dim, 1);
  perChain("init", options.init, s.chains, dim);
  const metrics = perChain("invMetric", options.invMetric, s.chains, s.metric === "diag" ? dim : dim * dim);
  metrics.forEach((given, c) => {
    if (given && !new Metric(s.metric, dim).trySet(given)) {
      throw new SamplerOptionError(`invMetric for chain ${c + 1} is not finite and positive definite`);
    }
  });
}

/** All that one chain of a run carries from one iteration to the next, and what it has drawn. */
export interface ChainState {
  readonly q: Float64Array;
  readonly lp: number;
  readonly grad: Float64Array;
  readonly evaluations: number;
  readonly stepSize: number;
  readonly metric: MetricState;
  readonly adaptation: ChainAdaptationState;
  /** The run's whole draws array and statistics of the chain (filled up to the iterations done). */
  readonly draws: Float64Array;
  readonly stats: ChainStats;
}

/** Some chains of a run between two iterations, to continue them as a run of their own (in another thread). */
export interface RunState {
  readonly iteration: number;
  readonly started: boolean;
  readonly warmupMs: number;
  readonly samplingMs: number;
  readonly chains: readonly ChainState[];
}

/** The iterations after which warmup's host acts (the metric updates, then warmup's end): SamplingRun.hostSteps. */
export function hostStepsOf(warmup: number): number[] {
  return warmup > 0 ? [...windowEnds(warmup, defaultWindows).filter((t) => t < warmup - 1), warmup - 1] : [];
}

/** A run that can be advanced one iteration at a time (used by sample and sampleAsync). */
export class SamplingRun {
  readonly settings: ResolvedSampleSettings;
  readonly dim: number;
  private readonly density: BatchedDensity;
  private readonly options: SampleOptions;
  private readonly batch: ChainBatch;
  private readonly updated: Uint8Array;
  private readonly metrics: Metric[];
  private readonly transitions: Transition[];
  private readonly runner: TransitionRunner | null;
  private readonly runnerStats: RunnerStats[];
  private readonly searches: StepSizeSearch[];
  private readonly inits: InitialPointSearch[];
  private readonly adaptations: ChainAdaptation[];
  private readonly stepSizes: Float64Array;
  private readonly draws: Float64Array[];
  private readonly stats: ChainStats[];
  private iteration = 0;
  private started = false;
  private warmupMs = 0;
  private samplingMs = 0;
  private runnerMs = 0;
  private runnerGradients = 0;
  /** Warmup iterations after which the host acts itself (metric updates, the final step size), where a runner's warmup blocks end. */
  readonly hostSteps: readonly number[];

  constructor(density: BatchedDensity, options: SampleOptions = {}) {
    const s = resolveSettings(options);
    const dim = density.dim;
    checkInteger("density.dim", dim, 1);
    this.settings = s;
    this.dim = dim;
    this.density = density;
    this.options = options;
    const key = seedKey(s.seed);
    const metricLength = s.metric === "diag" ? dim : dim * dim;
    const givenInits = perChain("init", options.init, s.chains, dim);
    const givenMetrics = perChain("invMetric", options.invMetric, s.chains, metricLength);

    const dualAveraging = { ...defaultDualAveraging, delta: s.adaptDelta };
    this.batch = new ChainBatch(s.chains, dim);
    this.updated = new Uint8Array(s.chains);
    this.metrics = [];
    this.transitions = [];
    this.searches = [];
    this.inits = [];
    this.adaptations = [];
    this.stepSizes = new Float64Array(s.chains).fill(s.stepSize);
    this.draws = [];
    this.stats = [];
    this.runnerStats = [];
    for (let c = 0; c < s.chains; c++) {
      this.runnerStats.push({ acceptStat: 0, treeDepth: 0, nLeapfrog: 0, divergent: false, energy: 0 });
      const slot = { row: c, id: s.firstChain + c };
      const metric = new Metric(s.metric, dim);
      const given = givenMetrics[c];
      if (given && !metric.trySet(given)) {
        throw new SamplerOptionError(`invMetric for chain ${c + 1} is not finite and positive definite`);
      }
      this.metrics.push(metric);
      const chain = chainContext(this.batch, slot, key, metric);
      // A runner's transitions run elsewhere: the host's machines (a NUTS tree's storage per chain,
      // a tenth of a second for a thousand chains) would never be used.
      if (!options.transitionRunner) {
        this.transitions.push(
          s.sampler === "nuts"
            ? new NutsTransition(chain, { maxDepth: s.maxDepth, maxDeltaH: s.maxDeltaH })
            : new HmcTransition(chain, { steps: s.hmcSteps, maxDeltaH: s.maxDeltaH }),
        );
      }
      this.searches.push(new StepSizeSearch(chain));
      this.inits.push(new InitialPointSearch(this.batch, slot, key, s.initRadius, givenInits[c] ?? null));
      this.adaptations.push(
        new ChainAdaptation(slot.id, metric, s.warmup, s.stepSize, dualAveraging, defaultWindows),
      );
      this.draws.push(new Float64Array(s.draws * dim));
      const n = s.draws;
      this.stats.push({
        lp: new Float64Array(n),
        acceptStat: new Float64Array(n),
        stepSize: new Float64Array(n),
        treeDepth: new Float64Array(n),
        nLeapfrog: new Float64Array(n),
        divergent: new Float64Array(n),
        energy: new Float64Array(n),
      });
    }
    const stepSizeAdaptation = {
      settings: dualAveraging,
      state: (c: number) => this.adaptations[c]!.dualAveraging.snapshot(),
      hostSteps: hostStepsOf(s.warmup),
    };
    this.hostSteps = stepSizeAdaptation.hostSteps;
    const blockLimit = options.runnerBlockLimit;
    this.runner = options.transitionRunner
      ? options.transitionRunner({ settings: s, dim, metrics: this.metrics, stepSizeAdaptation, ...(blockLimit ? { blockLimit } : {}) })
      : null;
  }

  // Statistics of chain c's last transition, wherever it ran.
  private lastStats(c: number): TransitionStats {
    return this.runner ? this.runnerStats[c]! : this.transitions[c]!;
  }

  /** Iterations done so far (warmup first). */
  get iterationsDone(): number {
    return this.iteration;
  }

  /**
   * The state of rows first … first+count−1 between iterations, for a run of those chains
   * (chainRangeOptions) to continue with restore(): it then draws what this run would have drawn.
   * The draws and statistics arrays are this run's own, handed over: this run must not be advanced
   * afterwards.
   */
  handOver(first: number, count: number): RunState {
    const chains: ChainState[] = [];
    for (let c = first; c < first + count; c++) {
      chains.push({
        q: Float64Array.from(this.batch.qRows[c]!),
        lp: this.batch.lp[c]!,
        grad: Float64Array.from(this.batch.gradRows[c]!),
        evaluations: this.batch.evaluations[c]!,
        stepSize: this.stepSizes[c]!,
        metric: this.metrics[c]!.state(),
        adaptation: this.adaptations[c]!.state(),
        draws: this.draws[c]!,
        stats: this.stats[c]!,
      });
    }
    return { iteration: this.iteration, started: this.started, warmupMs: this.warmupMs, samplingMs: this.samplingMs, chains };
  }

  /** Gradient evaluations so far, all chains together. */
  get evaluationsDone(): number {
    let n = 0;
    for (const e of this.batch.evaluations) n += e;
    return n;
  }

  /** Continues from handOver()'s state of as many chains as this run has, before this run's first step. */
  restore(state: RunState): void {
    const s = this.settings;
    if (this.iteration !== 0 || this.started) throw new SamplerOptionError("restore: the run has already stepped");
    if (state.chains.length !== s.chains) throw new SamplerOptionError(`restore: a state of ${state.chains.length} chains for a run of ${s.chains}`);
    state.chains.forEach((ch, c) => {
      this.batch.qRows[c]!.set(ch.q);
      this.batch.lp[c] = ch.lp;
      this.batch.gradRows[c]!.set(ch.grad);
      this.batch.evaluations[c] = ch.evaluations;
      this.stepSizes[c] = ch.stepSize;
      this.metrics[c]!.restore(ch.metric);
      this.adaptations[c]!.restore(ch.adaptation);
      this.draws[c] = ch.draws;
      this.stats[c] = ch.stats;
    });
    this.iteration = state.iteration;
    this.started = state.started;
    this.warmupMs = state.warmupMs;
    this.samplingMs = state.samplingMs;
  }

  /** Whether iterations remain. */
  get done(): boolean {
    return this.iteration >= this.settings.warmup + this.settings.draws;
  }

  /** Runs one iteration of every chain (initializing first); returns false when the run is complete. */
  step(): boolean {
    if (this.done) return false;
    const t0 = performance.now();
    const t = this.beforeTransitions();
    if (this.runner) {
      const r0 = performance.now();
      this.runner.run(t, this.stepSizes, this.batch, this.runnerStats);
      this.countRunner(r0);
    } else this.runTransitions(t);
    return this.afterTransitions(t, t0);
  }

  /** As step, but a runner that offers runAsync waits for its device without blocking the thread. */
  async stepAsync(): Promise<boolean> {
    if (this.done) return false;
    const t0 = performance.now();
    const t = this.beforeTransitions();
    const r0 = performance.now();
    if (this.runner?.runAsync) await this.runner.runAsync(t, this.stepSizes, this.batch, this.runnerStats);
    else if (this.runner) this.runner.run(t, this.stepSizes, this.batch, this.runnerStats);
    else this.runTransitions(t);
    if (this.runner) this.countRunner(r0);
    return this.afterTransitions(t, t0);
  }

  // The runner's time and gradients so far (what the fallback compares the CPU against).
  private countRunner(r0: number): void {
    this.runnerMs += performance.now() - r0;
    for (const st of this.runnerStats) this.runnerGradients += st.nLeapfrog;
  }

  /** Seconds spent in the transition runner's calls, and the gradients its transitions took (all chains). */
  get runnerCost(): RunnerCost {
    return { seconds: this.runnerMs / 1000, gradients: this.runnerGradients };
  }

  /** Whether the run's transitions can wait for a device without blocking the thread. */
  get waitsAsync(): boolean {
    return this.runner?.runAsync !== undefined;
  }

  // Initialization (first iteration) and the adapted-metric callback; returns the iteration.
  private beforeTransitions(): number {
    const s = this.settings;
    const { batch } = this;
    if (!this.started) {
      for (let c = 0; c < s.chains; c++) batch.active[c] = this.inits[c]!.begin() ? 1 : 0;
      driveBatch(this.density, batch, this.inits);
      // Stan searches for a first step size whenever it adapts.
      if (s.warmup > 0) this.searchStepSizes(0, null);
      this.started = true;
    }
    const t = this.iteration;
    if (t === s.warmup && this.options.onAdapted) {
      const adaptation = this.adaptation();
      for (let c = 0; c < s.chains; c++) this.options.onAdapted(c, adaptation[c]!);
    }
    return t;
  }

  // The host's own transitions (no runner): every chain's NUTS or HMC over the batched density.
  private runTransitions(t: number): void {
    const { batch } = this;
    for (let c = 0; c < this.settings.chains; c++) batch.active[c] = this.transitions[c]!.begin(t, this.stepSizes[c]!) ? 1 : 0;
    driveBatch(this.density, batch, this.transitions);
  }

  // Records iteration t's draws, adapts in warmup, and advances; returns false when the run is complete.
  private afterTransitions(t: number, t0: number): boolean {
    const s = this.settings;
    const { batch } = this;
    const warmup = t < s.warmup;
    this.record(t, warmup);

    if (warmup) {
      const { updated, adaptations, stepSizes } = this;
      const qRows = batch.qRows;
      updated.fill(0);
      let anyUpdated = false;
      for (let c = 0; c < s.chains; c++) {
        const a = adaptations[c]!;
        stepSizes[c] = a.learnStepSize(this.lastStats(c).acceptStat);
        if (a.learnMetric(qRows[c]!)) {
          updated[c] = 1;
          anyUpdated = true;
        }
      }
      if (anyUpdated) {
        this.searchStepSizes(t + 1, updated);
        for (let c = 0; c < s.chains; c++) if (updated[c]) this.adaptations[c]!.restartStepSize(this.stepSizes[c]!);
      }
      if (t === s.warmup - 1) {
        for (let c = 0; c < s.chains; c++) this.stepSizes[c] = this.adaptations[c]!.finalStepSize();
      }
    }
    this.iteration++;
    const elapsed = performance.now() - t0;
    if (warmup) this.warmupMs += elapsed;
    else this.samplingMs += elapsed;
    return !this.done;
  }

  /** Step-size search (batched) for the chains marked in `which` (all when null), preceding iteration t. */
  private searchStepSizes(t: number, which: Uint8Array | null): void {
    const { batch } = this;
    for (let c = 0; c < this.settings.chains; c++) {
      batch.active[c] = which === null || which[c] ? (this.searches[c]!.begin(t, this.stepSizes[c]!) ? 1 : 0) : 0;
    }
    driveBatch(this.density, batch, this.searches);
    for (let c = 0; c < this.settings.chains; c++) {
      if (which === null || which[c]) this.stepSizes[c] = this.searches[c]!.stepSize;
    }
  }

  /** Stores the iteration's draw and statistics and reports them. */
  private record(t: number, warmup: boolean): void {
    const s = this.settings;
    const { batch, dim } = this;
    const onDraw = this.options.onDraw;
    // Nothing to store or report in warmup without a callback (a thousand chains' loop per iteration).
    if (warmup && !onDraw) return;
    const { draws, stats, stepSizes } = this;
    const q = batch.q;
    for (let c = 0; c < s.chains; c++) {
      const tr = this.lastStats(c);
      const lp = batch.lp[c]!;
      const eps = stepSizes[c]!;
      if (!warmup) {
        const i = t - s.warmup;
        // An element loop: TypedArray.set's call costs more than copying a short row.
        const out = draws[c]!;
        for (let j = 0, o = i * dim, r = c * dim; j < dim; j++) out[o + j] = q[r + j]!;
        const st = stats[c]!;
        st.lp[i] = lp;
        st.acceptStat[i] = tr.acceptStat;
        st.stepSize[i] = eps;
        st.treeDepth[i] = tr.treeDepth;
        st.nLeapfrog[i] = tr.nLeapfrog;
        st.divergent[i] = tr.divergent ? 1 : 0;
        st.energy[i] = tr.energy;
      }
      if (onDraw) {
        onDraw({
          chain: c,
          chainId: s.firstChain + c,
          iteration: t,
          warmup,
          position: batch.qRows[c]!,
          lp,
          acceptStat: tr.acceptStat,
          stepSize: eps,
          treeDepth: tr.treeDepth,
          nLeapfrog: tr.nLeapfrog,
          divergent: tr.divergent,
          energy: tr.energy,
        });
      }
    }
  }

  // Each chain's step size and inverse metric as they are now.
  private adaptation(): ChainAdaptationResult[] {
    return this.metrics.map((m, c) => ({
      stepSize: this.stepSizes[c]!,
      metric: m.kind,
      invMetric: Float64Array.from(m.inverse),
    }));
  }

  /** The draws so far (trimmed when the run stopped early). */
  result(aborted: boolean): SampleResult {
    const s = this.settings;
    const drawsDone = Math.max(0, this.iteration - s.warmup);
    const warmupDone = Math.min(this.iteration, s.warmup);
    const trim = (a: Float64Array): Float64Array => (drawsDone === s.draws ? a : a.slice(0, drawsDone));
    return {
      dim: this.dim,
      settings: s,
      draws: this.draws.map((d) => (drawsDone === s.draws ? d : d.slice(0, drawsDone * this.dim))),
      stats: this.stats.map((st) => ({
        lp: trim(st.lp),
        acceptStat: trim(st.acceptStat),
        stepSize: trim(st.stepSize),
        treeDepth: trim(st.treeDepth),
        nLeapfrog: trim(st.nLeapfrog),
        divergent: trim(st.divergent),
        energy: trim(st.energy),
      })),
      adaptation: this.adaptation(),
      warmupDone,
      drawsDone,
      aborted,
      gradientEvaluations: Array.from(this.batch.evaluations),
      timing: { warmupSeconds: this.warmupMs / 1000, samplingSeconds: this.samplingMs / 1000 },
    };
  }
}

/** Samples C chains together (synchronously); stops between iterations when `signal` aborts. */
export function sample(density: BatchedDensity, options: SampleOptions = {}): SampleResult {
  if ((options.threads ?? 1) !== 1) throw new SamplerOptionError(`threads: sample() runs in the calling thread; use sampleAsync() for ${options.threads} threads`);
  if (options.pendingRunner) throw new SamplerOptionError("pendingRunner: sample() cannot wait for a runner being prepared; use sampleAsync()");
  let run = new SamplingRun(density, options);
  const signal = options.signal;
  const fallback = fallbackPoint(run, options);
  let decision: FallbackDecision | undefined;
  let base: RunnerCost = { seconds: 0, gradients: 0 };
  while (!run.done) {
    if (signal?.aborted) return withDecision(run.result(true), decision);
    run.step();
    if (fallback !== null && run.iterationsDone === fallback.from) base = run.runnerCost;
    if (fallback !== null && run.iterationsDone === fallback.at) {
      const moved = fallBack(run, options, base);
      decision = moved.decision;
      if (moved.state) {
        run = new SamplingRun(options.fallback!.density, cpuOptions(options));
        run.restore(moved.state);
      }
    }
  }
  return withDecision(run.result(false), decision);
}

// Where a run with a runner and options.fallback measures and decides, or null.
function fallbackPoint(run: SamplingRun, options: SampleOptions): { readonly from: number; readonly at: number } | null {
  if (!options.fallback || !options.transitionRunner) return null;
  const s = run.settings;
  const point = fallbackIteration(options.fallback, s.warmup, s.draws, run.hostSteps);
  return point.at > 0 && point.at < s.warmup + s.draws ? point : null;
}

// Decides at the fallback point; hands the chains over (lp and gradient evaluated again on the CPU density) when they move.
// `base` is the runner's cost when the measured iterations began.
function fallBack(run: SamplingRun, options: SampleOptions, base: RunnerCost): { decision: FallbackDecision; state?: RunState } {
  const fallback = options.fallback!;
  const chains = run.settings.chains;
  const cost = run.runnerCost;
  const measured = { iteration: run.iterationsDone, runnerSeconds: cost.seconds - base.seconds, gradients: cost.gradients - base.gradients };
  let decision = decideFallback(fallback, chains, measured, (seconds) => {
    // A trial of the CPU sampler from a copy of where the chains stand; its draws are thrown away.
    const copy = reevaluated(detached(run.handOver(0, chains)), fallback.density);
    const trial = new SamplingRun(fallback.density, { ...cpuOptions(options), onDraw: undefined, onAdapted: undefined, signal: undefined, threads: 1 });
    trial.restore(copy);
    return trialSecondsPerGradient(() => {
      if (trial.done) return null;
      const before = trial.evaluationsDone;
      trial.step();
      return trial.evaluationsDone - before;
    }, seconds);
  });
  let state: RunState | undefined;
  if (decision.switched) {
    const moved = reevaluated(run.handOver(0, chains), fallback.density);
    // A point the CPU density cannot evaluate (its float type differs) stays where it is.
    if (moved.chains.every((ch) => Number.isFinite(ch.lp))) state = moved;
    else decision = { ...decision, switched: false };
  }
  fallback.onDecision?.(decision);
  return state ? { decision, state } : { decision };
}

// The run's options for the CPU sampler that takes over: no runner, no second fallback.
function cpuOptions(options: SampleOptions): SampleOptions {
  const { transitionRunner: _runner, fallback: _fallback, ...rest } = options;
  return rest;
}

function withDecision(result: SampleResult, decision: FallbackDecision | undefined): SampleResult {
  return decision ? { ...result, fallback: decision } : result;
}

/**
 * As {@link sample}, but yields to the event loop every `yieldEveryMs`
 * milliseconds (default 50) so that signal handlers (Ctrl-C) can abort it,
 * and runs the chains on `threads` threads where asked.
 */
export async function sampleAsync(
  density: BatchedDensity,
  options: SampleOptions & { yieldEveryMs?: number } = {},
): Promise<SampleResult> {
  const threads = checkInteger("threads", options.threads ?? 1, 1, 1024);
  if (options.pendingRunner) {
    if (options.transitionRunner) throw new SamplerOptionError("pendingRunner: the run starts on the CPU; leave transitionRunner out");
    // Imported when used: it imports this module.
    const { samplePending } = await import("./pending-runner.ts");
    return samplePending(density, options);
  }
  if (threads > 1) {
    // Imported when used: the pool imports this module.
    const { sampleThreads } = await import("./threads/pool.ts");
    return sampleThreads(density, options);
  }
  let run = new SamplingRun(density, options);
  const signal = options.signal;
  const every = options.yieldEveryMs ?? 50;
  const fallback = fallbackPoint(run, options);
  let decision: FallbackDecision | undefined;
  let base: RunnerCost = { seconds: 0, gradients: 0 };
  let last = performance.now();
  while (!run.done) {
    if (signal?.aborted) return withDecision(run.result(true), decision);
    // A runner that waits for its devices asynchronously yields at every block it waits for.
    if (run.waitsAsync) await run.stepAsync();
    else run.step();
    if (fallback !== null && run.iterationsDone === fallback.from) base = run.runnerCost;
    if (fallback !== null && run.iterationsDone === fallback.at) {
      const moved = fallBack(run, options, base);
      decision = moved.decision;
      if (moved.state) {
        const cpu = { ...cpuOptions(options), threads: options.fallback!.threads };
        if (cpu.threads > 1 && typeof (options.fallback!.density as { share?: unknown }).share === "function") {
          const { sampleThreads } = await import("./threads/pool.ts");
          return withDecision(await sampleThreads(options.fallback!.density, cpu, {}, moved.state), decision);
        }
        run = new SamplingRun(options.fallback!.density, { ...cpu, threads: 1 });
        run.restore(moved.state);
      }
    }
    if (performance.now() - last >= every) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    }
  }
  return withDecision(run.result(false), decision);
}

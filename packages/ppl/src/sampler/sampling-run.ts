/**
 * One run of C chains advanced together, an iteration at a time: each chain a per-chain state
 * machine, all gradients of a round served by one batched logpGrad call. Each chain adapts its own
 * step size and metric, as Stan runs chains independently. Randomness comes only from Philox
 * streams keyed by (seed, chain id, iteration, purpose), so any chain's run is reproducible on its
 * own (chain id = firstChain + row). The drivers (drivers/, threads/) advance runs; a run hands its
 * chains over (handOver/restore) to move them between drivers.
 */
import { ChainBatch, driveBatch } from "./batch.ts";
import type { BatchedDensity } from "./density.ts";
import { SamplerOptionError } from "./errors.ts";
import { InitialPointSearch } from "./initialize.ts";
import { Metric } from "./metric.ts";
import { methodOf } from "./methods/builtin.ts";
import type { AdaptationMethod, RunAdaptationMethod, SamplingMethod } from "./methods/method.ts";
import type { SampleOptions } from "./options.ts";
import { drawRecord, type DrawRecord } from "./draw-record.ts";
import type { ChainAdaptationResult, ChainStats, SampleResult } from "./result.ts";
import type { ChainState, RunState } from "./run-state.ts";
import { checkInteger, hostStepsOf, perChain, resolveSettings, type ResolvedSampleSettings } from "./settings.ts";
import { chainContext, type TransitionStats } from "./transition.ts";
import { runLeapfrogs, type Trajectory } from "./trajectory.ts";
import { planOwnedOptions, servesGradientsOnly, type RunnerCost, type RunnerStats, type TransitionRunner } from "./transition-runner.ts";
import type { GradientStepper } from "./batch.ts";
import { dualAveragingOf } from "./methods/windowed-adaptation.ts";
import { StepSizeSearch } from "./warmup/stepsize-search.ts";
import { StuckWatch, type EvidenceExchange } from "./warmup/stuck-watch.ts";
import { seedKey } from "../random/streams.ts";

/** A run that can be advanced one iteration at a time (used by sample and sampleAsync). */
export class SamplingRun {
  readonly settings: ResolvedSampleSettings;
  readonly dim: number;
  private readonly density: BatchedDensity;
  private readonly options: SampleOptions;
  private readonly batch: ChainBatch;
  private readonly updated: Uint8Array;
  private readonly metrics: Metric[];
  private readonly method: SamplingMethod<unknown>;
  // Each chain's state of the method, and its steppers for the batched gradients.
  private readonly states: unknown[];
  private readonly steppers: GradientStepper[];
  // Each chain's trajectory of the iteration, for a method that hands whole trajectories over.
  private readonly trajectories: Trajectory[] = [];
  private readonly runner: TransitionRunner | null;
  private readonly runnerStats: RunnerStats[];
  private readonly searches: StepSizeSearch[];
  private readonly inits: InitialPointSearch[];
  // Warmup's adaptation (the method's; none for a method without one) and each chain's state of it.
  private readonly adapt: AdaptationMethod<unknown> | null;
  private readonly adaptations: unknown[];
  // Warmup's adaptation over all chains at once (a method's runAdaptation), and its state.
  private readonly runAdapt: RunAdaptationMethod<unknown, unknown> | null;
  private readonly runAdaptState: unknown;
  private readonly stepSizes: Float64Array;
  // Each chain's evidence over the current warmup window, for re-initialising stuck chains.
  private readonly stuck: StuckWatch;
  private readonly draws: Float64Array[];
  private readonly stats: ChainStats[];
  private iteration = 0;
  private started = false;
  private warmupMs = 0;
  private samplingMs = 0;
  private runnerMs = 0;
  private runnerGradients = 0;
  // Each chain's draw record, filled in place for every onDraw call: no object a draw (see record).
  private readonly drawRecords: DrawRecord[] = [];
  /** Warmup iterations after which the host acts itself (metric updates, the final step size), where a runner's warmup blocks end. */
  readonly hostSteps: readonly number[];

  constructor(density: BatchedDensity, given: SampleOptions = {}) {
    const options = planOwnedOptions(given);
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
    const superchainSize = checkInteger("superchainSize", options.superchainSize ?? 1, 1);

    const method = methodOf(options.method ?? s.sampler);
    // A runner that serves the batched density only: the method's transitions run here, over it.
    const gradientsOnly = servesGradientsOnly(options.transitionRunner);
    const runner = gradientsOnly ? undefined : options.transitionRunner;
    if (gradientsOnly && options.fallback) {
      throw new SamplerOptionError("fallback: the runner serves the batched density only (plan.transitions 'host'), so there are no runner transitions to time against the CPU; leave fallback out");
    }
    if (runner && options.method !== undefined && method.name !== s.sampler) {
      throw new SamplerOptionError(`method: a transition runner runs the sampler it was prepared for (${s.sampler}); leave method out, or the runner`);
    }
    this.method = method;
    this.adapt = method.adaptation;
    this.batch = new ChainBatch(s.chains, dim);
    this.updated = new Uint8Array(s.chains);
    this.metrics = [];
    this.states = [];
    this.steppers = [];
    this.searches = [];
    this.inits = [];
    this.adaptations = [];
    this.stepSizes = new Float64Array(s.chains).fill(s.stepSize);
    this.stuck = new StuckWatch(s.chains, dim);
    this.draws = [];
    this.stats = [];
    this.runnerStats = [];
    // A method whose adaptation keeps every chain's metric equal has one metric object for all.
    const sharedMetric = method.runAdaptation?.sharedMetric && givenMetrics.every((m) => m === undefined) ? new Metric(s.metric, dim) : null;
    for (let c = 0; c < s.chains; c++) {
      this.runnerStats.push({ acceptStat: 0, treeDepth: 0, nLeapfrog: 0, divergent: false, energy: 0 });
      this.drawRecords.push(drawRecord(c, s.firstChain + c, this.batch.qRows[c]!));
      const slot = { row: c, id: s.firstChain + c };
      const metric = sharedMetric ?? new Metric(s.metric, dim);
      const given = givenMetrics[c];
      if (given && !metric.trySet(given)) {
        throw new SamplerOptionError(`invMetric for chain ${c + 1} is not finite and positive definite`);
      }
      this.metrics.push(metric);
      const chain = chainContext(this.batch, slot, key, metric);
      // A runner's transitions run elsewhere: the host's machines (a NUTS tree's storage per chain,
      // a tenth of a second for a thousand chains) would never be used.
      if (!runner) {
        const state = method.init(chain, s);
        this.states.push(state);
        this.steppers.push({ advance: () => method.advance(state) });
      }
      this.searches.push(new StepSizeSearch(chain));
      this.inits.push(new InitialPointSearch(this.batch, { row: c, id: initStreamOf(slot.id, superchainSize) }, key, s.initRadius, givenInits[c] ?? null));
      if (this.adapt) this.adaptations.push(this.adapt.init(slot, metric, s));
      // Without keepDraws, onDraw is the only record: nothing grows with the run.
      const n = options.keepDraws === false ? 0 : s.draws;
      this.draws.push(new Float64Array(n * dim));
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
      settings: dualAveragingOf(s),
      state: (c: number) => this.adapt!.dualAveraging(this.adaptations[c]),
      hostSteps: hostStepsOf(s.warmup),
    };
    this.hostSteps = stepSizeAdaptation.hostSteps;
    const blockLimit = options.runnerBlockLimit;
    this.runner = runner
      ? runner.factory({ settings: s, dim, metrics: this.metrics, stepSizeAdaptation, ...(blockLimit ? { blockLimit } : {}) })
      : null;
    this.runAdapt = method.runAdaptation ?? null;
    if (this.runAdapt && this.runner) throw new SamplerOptionError(`method: ${method.name} adapts across chains on the host; prepare the runner with plan.transitions 'host' (it then serves the batched density and the method runs here), or leave it out`);
    this.runAdaptState = this.runAdapt ? this.runAdapt.init(this.metrics, s) : null;
  }

  // Statistics of chain c's last transition, wherever it ran.
  private lastStats(c: number): TransitionStats {
    return this.runner ? this.runnerStats[c]! : this.method.info(this.states[c]);
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
        ...(this.adapt ? { adaptation: this.adapt.save(this.adaptations[c]) } : {}),
        stuck: this.stuck.state(c),
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
      if (this.adapt && ch.adaptation) this.adapt.restore(this.adaptations[c], ch.adaptation);
      if (ch.stuck) this.stuck.restore(c, ch.stuck);
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

  /** Whether this run can take checkpoints: on the host always; on a runner that says where its state is whole (TransitionRunner.atBlockEnd). */
  get takesCheckpoints(): boolean {
    return this.runner === null || this.runner.atBlockEnd !== undefined;
  }

  /** Whether a checkpoint taken now resumes to this run's own draws: on the host after any iteration, on a runner at its block's end. */
  get atCheckpoint(): boolean {
    return this.runner === null || (this.runner.atBlockEnd?.() ?? false);
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
      if (s.warmup > 0 && this.adapt) this.searchStepSizes(0, null);
      if (s.warmup > 0 && this.runAdapt) {
        this.searchStepSizes(0, null);
        this.runAdapt.start(this.runAdaptState, this.states, this.stepSizes);
      }
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
    const { method, states, stepSizes } = this;
    const lf = method.leapfrogs;
    if (lf) {
      // Whole trajectories: every chain's in one call of the density (a GPU's runs them on the device).
      const trajectories = this.trajectories;
      if (lf.startAll) lf.startAll(states, t, stepSizes, trajectories);
      else for (let c = 0; c < this.settings.chains; c++) trajectories[c] = lf.start(states[c], t, stepSizes[c]!);
      runLeapfrogs(this.density, batch, trajectories);
      if (lf.finishAll) lf.finishAll(states);
      else for (let c = 0; c < this.settings.chains; c++) lf.finish(states[c]);
      return;
    }
    for (let c = 0; c < this.settings.chains; c++) batch.active[c] = method.begin(states[c], t, stepSizes[c]!) ? 1 : 0;
    driveBatch(this.density, batch, this.steppers);
  }

  // Records iteration t's draws, adapts in warmup, and advances; returns false when the run is complete.
  private afterTransitions(t: number, t0: number): boolean {
    const s = this.settings;
    const { batch } = this;
    const warmup = t < s.warmup;
    this.record(t, warmup);

    if (warmup && this.adapt) this.adaptStep(t, this.adapt);
    if (warmup && this.runAdapt) {
      this.runAdapt.update(this.runAdaptState, this.states, this.batch.qRows, this.stepSizes);
      if (t === s.warmup - 1) this.runAdapt.final(this.runAdaptState, this.states, this.stepSizes);
    }
    this.iteration++;
    const elapsed = performance.now() - t0;
    if (warmup) this.warmupMs += elapsed;
    else this.samplingMs += elapsed;
    return !this.done;
  }

  // Warmup's adaptation after iteration t: every chain's update, a step-size search where the metric
  // changed, and at warmup's end the step size to sample with.
  private adaptStep(t: number, adapt: AdaptationMethod<unknown>): void {
    const s = this.settings;
    const { updated, adaptations, stepSizes } = this;
    const qRows = this.batch.qRows;
    updated.fill(0);
    let anyUpdated = false;
    for (let c = 0; c < s.chains; c++) {
      const a = adaptations[c];
      const metricChanged = adapt.update(a, this.lastStats(c), qRows[c]!);
      stepSizes[c] = adapt.stepSize(a);
      if (metricChanged) {
        updated[c] = 1;
        anyUpdated = true;
      }
      this.stuck.add(c, qRows[c]!, this.lastStats(c).treeDepth, s.maxDepth);
    }
    // A window closes at the same iteration for every chain: the stuck ones start afresh before the
    // step-size search that follows it.
    if (anyUpdated && adapt.reinitialise) this.reinitialiseStuck(t, adapt);
    if (anyUpdated) {
      this.searchStepSizes(t + 1, updated);
      for (let c = 0; c < s.chains; c++) if (updated[c]) adapt.restart(adaptations[c], stepSizes[c]!);
    }
    if (t === s.warmup - 1) {
      for (let c = 0; c < s.chains; c++) stepSizes[c] = adapt.final(adaptations[c]);
    }
  }

  /** Shares the stuck-chain evidence with the run's chains in other threads (threads/stuck-exchange.ts). */
  shareStuckEvidence(exchange: EvidenceExchange): void {
    this.stuck.shareThrough(exchange);
  }

  // At the end of the window closed by warmup iteration t: each stuck chain (stuck-chains.ts) gets a
  // fresh initial point, searched as the first one was but from the Init stream of iteration t + 1
  // (reproducible, and unlike the first), and forgets its adaptation; it is marked `updated`, so
  // that the step-size search that follows starts it from the run's initial step size.
  private reinitialiseStuck(t: number, adapt: AdaptationMethod<unknown>): void {
    const s = this.settings;
    const chosen = this.stuck.check(t, s.warmup, this.stepSizes, s.firstChain);
    if (chosen.length === 0) return;
    const { batch } = this;
    const key = seedKey(s.seed);
    const steppers: InitialPointSearch[] = [...this.inits];
    batch.active.fill(0);
    for (const { row } of chosen) {
      const search = new InitialPointSearch(batch, { row, id: s.firstChain + row }, key, s.initRadius, null, t + 1);
      steppers[row] = search;
      batch.active[row] = search.begin() ? 1 : 0;
    }
    driveBatch(this.density, batch, steppers);
    for (const { row, stuck } of chosen) {
      adapt.reinitialise!(this.adaptations[row]);
      this.stepSizes[row] = s.stepSize;
      this.updated[row] = 1;
      this.options.onReinitialised?.({ chain: row, chainId: s.firstChain + row, iteration: t, stuck });
    }
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
    const keep = this.options.keepDraws !== false;
    // Nothing to store or report in warmup, or without keepDraws, when there is no callback (a loop over every chain an iteration).
    if ((warmup || !keep) && !onDraw) return;
    const { draws, stats, stepSizes } = this;
    const q = batch.q;
    for (let c = 0; c < s.chains; c++) {
      const tr = this.lastStats(c);
      const lp = batch.lp[c]!;
      const eps = stepSizes[c]!;
      if (!warmup && keep) {
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
        // The chain's one record, refilled: a fresh object per draw was the loop's garbage (DrawInfo
        // is valid only during the call, as its position view always was).
        const d = this.drawRecords[c]!;
        d.iteration = t;
        d.warmup = warmup;
        d.lp = lp;
        d.acceptStat = tr.acceptStat;
        d.stepSize = eps;
        d.treeDepth = tr.treeDepth;
        d.nLeapfrog = tr.nLeapfrog;
        d.divergent = tr.divergent;
        d.energy = tr.energy;
        onDraw(d);
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
      reinitialisations: this.stuck.reinitialisations(),
      timing: { warmupSeconds: this.warmupMs / 1000, samplingSeconds: this.samplingMs / 1000 },
    };
  }
}

/** The chain id whose Init stream chain `id` searches its initial point with: its superchain's first chain's. */
export function initStreamOf(id: number, superchainSize: number): number {
  return id - (id % superchainSize);
}

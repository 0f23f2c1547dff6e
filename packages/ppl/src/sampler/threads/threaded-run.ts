/**
 * Chains on several threads. The calling thread starts sampling every chain at once, as on one
 * thread. Once its own pace says that more than half a second of work is left, and it got half a
 * core or more (or the run is long), it enlists worker threads (enlist-policy.ts: a worker costs a
 * tenth of a second or more to start, see worker-script.ts, and on a machine whose cores are busy
 * a second thread slows the first, so a short run stays on one thread, as fast as it was); as soon as workers are ready, it hands them contiguous groups of its
 * chains between two iterations, with where they stand (SamplingRun.handOver), and goes on with the
 * first group. Every chain therefore draws the same bits wherever it runs. Draws, adaptations and
 * errors come back as messages; onDraw and onAdapted are called in the calling thread, each chain's
 * in order. A stop (the signal) ends every thread after the same iteration (see settleStop), so
 * that a stopped run has as many draws in every chain as a run on one thread has.
 *
 * The workers come from the process-wide pool (pool.ts).
 */
import type { ModelDensity } from "../../density/model-density.ts";
import type { SharedDensity } from "../../density/shared-density.ts";
import type { BatchedDensity } from "../density.ts";
import { SamplerOptionError } from "../errors.ts";
import type { OutputOptions, SampleOptions } from "../options.ts";
import { IterationLog } from "../pace.ts";
import type { SampleResult } from "../result.ts";
import type { RunState } from "../run-state.ts";
import { SamplingRun } from "../sampling-run.ts";
import { workerSettings } from "../methods/method-source.ts";
import { chainRangeOptions, checkChainOptions, resolveSettings, type ResolvedSampleSettings } from "../settings.ts";
import { shouldEnlist, type CallingThreadWork } from "./enlist-policy.ts";
import { densityIdOf, prestartSamplerThreads, slots, type Slot, type StartFn } from "./pool.ts";
import { evidenceBuffers, SharedEvidenceExchange, type EvidenceBuffers } from "./stuck-exchange.ts";
import {
  abortRun, blocksWord, Control, controlWords, Group, groupWord, Mode, progressWord, readRecord, RECORD_HEAD, type ThreadError, type ToWorker,
} from "./protocol.ts";
import { fromThreadError, mergeRanges, splitRows, type RangeResult } from "./ranges.ts";
import { stateBuffers } from "./state-buffers.ts";

/** How a threaded run is laid out (for tests and benchmarks). */
export interface ThreadLayout {
  /** Whether the calling thread samples too (true); false leaves every chain to the workers. */
  readonly callingThreadSamples?: boolean;
  /** Hand chains over to the workers after this many iterations, waiting for one to be ready (tests). */
  readonly handOverAt?: number;
  /**
   * Called in the calling thread after each of its iterations (its iterations done), or every few
   * milliseconds with the workers' fewest once it holds no chains, and the seconds since the
   * threads that hold the chains took them; true asks every thread to stop at a common iteration
   * and hand its chains back (sampleThreadsPausable).
   */
  readonly handBack?: (iterationsDone: number, timedSeconds: number) => boolean;
  /**
   * The calling thread hands all its chains to `threads` workers once they are ready, keeping none
   * (it has other work: a GPU's preparation, whose steps would hold its chains back, and the
   * others would wait for them at a pause).
   */
  readonly handOverAll?: boolean;
  /** Projected seconds of the calling thread's work beyond which it enlists workers (default 0.5; 0: at once). */
  readonly enlistAfterSeconds?: number;
  /** Pause (as handBack does) at this iteration exactly: the first thread to reach it asks, and none goes past it. */
  readonly pauseAt?: number;
  /** Called as the calling thread takes a block of a worker's draws, with that worker's blocks not yet taken, this one included (tests). */
  readonly onBlock?: (thread: number, blocksInFlight: number) => void;
}

/**
 * How fast the threads of a paused run went, each over the second half of the time since its
 * chains came to it (pace.ts), all threads together.
 */
export interface ThreadPace {
  /** Seconds the threads spent in those iterations, summed over threads. */
  readonly seconds: number;
  /** Gradient evaluations in those seconds, all chains. */
  readonly gradients: number;
  /** Threads that ran chains. */
  readonly threads: number;
}

/** A threaded run's end: its result, or (paused through ThreadLayout.handBack) where all its chains stand. */
export type ThreadedOutcome =
  | { readonly kind: "result"; readonly result: SampleResult }
  | { readonly kind: "paused"; readonly state: RunState; readonly pace: ThreadPace };

/**
 * Runs the chains on `options.threads` threads (see the module comment); the density must come
 * from modelDensity. With `resume`, the chains go on from where another run left them
 * (SamplingRun.handOver of all its chains), in the calling thread first.
 */
export async function sampleThreads(
  density: BatchedDensity,
  options: SampleOptions & { yieldEveryMs?: number },
  layout: ThreadLayout = {},
  resume?: RunState,
): Promise<SampleResult> {
  const { handBack: _h, ...plain } = layout;
  const outcome = await sampleThreadsPausable(density, options, plain, resume);
  if (outcome.kind !== "result") throw new Error("sampleThreads: a run without handBack was paused");
  return outcome.result;
}

/**
 * As sampleThreads, and with layout.handBack the run can be paused: every thread stops after the
 * same iteration and the outcome is where all the chains stand (to go on elsewhere, with restore
 * or as `resume`), with the threads' pace so far. A run that ends first has its result.
 */
export async function sampleThreadsPausable(
  density: BatchedDensity,
  options: SampleOptions & { yieldEveryMs?: number },
  layout: ThreadLayout = {},
  resume?: RunState,
): Promise<ThreadedOutcome> {
  if (options.transitionRunner) throw new SamplerOptionError("threads: a transition runner (a GPU) runs every chain itself; leave threads at 1");
  const share = (density as Partial<ModelDensity>).share;
  if (typeof share !== "function") {
    throw new SamplerOptionError("threads: worker threads rebuild the density from its shared form; pass a density made by modelDensity on the CPU backend, or leave threads at 1");
  }
  const s = resolveSettings(options);
  checkChainOptions(options, s, density.dim);
  // Refused now, not when a worker is first sent a group: a method no worker thread can find.
  workerSettings(options);
  const callingThread = layout.callingThreadSamples ?? true;
  if (resume !== undefined && !callingThread) throw new SamplerOptionError("threads: a resumed run starts in the calling thread");
  return new ThreadedRun(density, share.call(density), options, s, layout, resume).outcome();
}

// The process's CPU time in ms (every thread's: before a hand-over only the calling thread samples).
const cpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// Sleeps until the next turn of the event loop (so that messages and signals are handled).
const yieldTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, ms));

// One threaded run: its threads' shared control words, its workers, and the groups' results.
class ThreadedRun {
  private readonly density: BatchedDensity;
  private readonly spec: SharedDensity;
  private readonly id: number;
  private readonly options: SampleOptions & { yieldEveryMs?: number };
  private readonly s: ResolvedSampleSettings;
  private readonly layout: ThreadLayout;
  private readonly resume: RunState | undefined;
  private readonly callingThread: boolean;
  private readonly threads: number;
  private readonly handOverAll: boolean;
  private readonly workerCount: number;
  private readonly every: number;
  // Thread 0 is the calling thread; workers are 1 … workerCount.
  private readonly controlThreads: number;
  private readonly control: Int32Array;
  // Where the threads meet at warmup windows' ends to find stuck chains.
  private readonly stuck: EvidenceBuffers;
  private readonly t0 = performance.now();
  private readonly ranges: RangeResult[] = [];
  // Groups paused (handBack): where their chains stand, and each thread's pace over the second
  // half of its group's time.
  private readonly paused: { first: number; state: RunState }[] = [];
  private readonly pace = { seconds: 0, gradients: 0, threads: 0 };
  // When the chains went to the threads that hold them now (the run's start, then each hand-over).
  private handedAt = performance.now();
  private failure: ThreadError | null = null;
  // An error thrown by the caller's callbacks (onDraw writing a file to a full disk) for a worker's
  // draws: it stops the run and is thrown as it is, as it would be from the calling thread's own.
  private callbackError: { readonly error: unknown } | null = null;
  // Whether the calling thread is running chains: then it settles a stop itself, at its next
  // iteration boundary; otherwise the stop is settled here, as soon as it is asked for.
  private ownRunning = false;
  // This run's workers (enlistWorkers): free ones of the pool, started where there are too few.
  // A worker runs at most one group of chains per run; `busy` counts the groups out.
  private readonly mine: Slot[] = [];
  private readonly used = new Set<Slot>();
  private busy = 0;
  private wake: (() => void) | null = null;

  constructor(
    density: BatchedDensity, spec: SharedDensity, options: SampleOptions & { yieldEveryMs?: number }, s: ResolvedSampleSettings,
    layout: ThreadLayout, resume: RunState | undefined,
  ) {
    this.density = density;
    this.spec = spec;
    this.id = densityIdOf(spec);
    this.options = options;
    this.s = s;
    this.layout = layout;
    this.resume = resume;
    this.callingThread = layout.callingThreadSamples ?? true;
    this.threads = Math.min(options.threads ?? 1, s.chains);
    this.handOverAll = this.callingThread && layout.handOverAll === true && this.threads > 1;
    this.workerCount = this.callingThread && !this.handOverAll ? this.threads - 1 : this.threads;
    this.every = options.yieldEveryMs ?? 50;
    this.controlThreads = this.workerCount + 1;
    this.control = controlWords(this.controlThreads);
    this.stuck = evidenceBuffers(s.chains, s.warmup);
  }

  /** Runs the run to its end (or pause) and returns what it came to. */
  async outcome(): Promise<ThreadedOutcome> {
    const signal = this.options.signal;
    let callingError: unknown = null;
    signal?.addEventListener("abort", this.onAbort);
    if (signal?.aborted) this.onAbort();
    try {
      if (!this.callingThread) await this.allToWorkers();
      else {
        try {
          this.ownRunning = true;
          await this.sampleHere();
        } catch (e) {
          // The workers stop after their current iteration; the run waits for them so that none is
          // still running a group of this run when the next run takes it.
          callingError = e;
          this.abort();
        } finally {
          this.ownRunning = false;
        }
        const mode = Atomics.load(this.control, Control.MODE);
        if (mode === Mode.STOP || mode === Mode.PAUSE) await this.settleStop(null);
      }
      while (this.busy > 0) await this.nextChange();
    } finally {
      signal?.removeEventListener("abort", this.onAbort);
      for (const slot of this.mine) {
        slot.owner = null;
        slot.onState = null;
        slot.start = null;
        slot.worker?.unref();
      }
    }
    if (callingError !== null) throw callingError;
    if (this.callbackError !== null) throw this.callbackError.error;
    if (this.failure) throw fromThreadError(this.failure);
    return this.ended();
  }

  // The outcome once every thread is done: the paused state, or the merged result.
  private ended(): ThreadedOutcome {
    const { resume, paused, ranges } = this;
    // A resumed run's wall time includes the time its chains ran elsewhere before.
    const before = resume === undefined ? 0 : (resume.warmupMs + resume.samplingMs) / 1000;
    const wall = before + (performance.now() - this.t0) / 1000;
    if (paused.length > 0 && ranges.length === 0) {
      return { kind: "paused", state: joined(paused, wall), pace: { ...this.pace } };
    }
    // A pause that met a stop or an error: the paused groups end as stopped ones.
    for (const p of paused) ranges.push({ first: p.first, thread: -1, result: this.stoppedRun(p.first, p.state).result(true) });
    return { kind: "result", result: mergeRanges(this.s, this.density.dim, ranges, wall, this.options.signal?.aborted === true || paused.length > 0) };
  }

  private addPace(p: { seconds: number; gradients: number }): void {
    this.pace.seconds += p.seconds;
    this.pace.gradients += p.gradients;
    this.pace.threads++;
  }

  private abort(): void {
    // Workers waiting for a common stop wake up and stop.
    abortRun(this.control);
  }

  private fail(e: ThreadError): void {
    this.failure ??= e;
    this.abort();
  }

  private readonly onAbort = (): void => {
    if (Atomics.compareExchange(this.control, Control.MODE, Mode.RUNNING, Mode.STOP) !== Mode.RUNNING) return;
    if (!this.ownRunning) void this.settleStop(null);
  };

  private changed(): void {
    this.wake?.();
    this.wake = null;
  }

  // Resolves when a worker becomes ready, finishes a group or dies.
  private nextChange(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  private idleReady(): (Slot & { start: StartFn })[] {
    return this.mine.filter((slot): slot is Slot & { start: StartFn } => slot.ready && !slot.dead && !this.used.has(slot) && slot.start !== null);
  }

  // Takes this run's workers from the pool (once).
  private enlistWorkers(): void {
    if (this.mine.length > 0) return;
    prestartSamplerThreads(this.workerCount);
    this.mine.push(...slots.filter((slot) => !slot.dead && slot.owner === null).slice(0, this.workerCount));
    this.mine.forEach((slot, w) => this.enlist(slot, w + 1));
  }

  // Makes `slot` this run's worker number `thread`: its messages, its death, its groups.
  private enlist(slot: Slot, thread: number): void {
    const { options, density, s } = this;
    const onDraw = options.onDraw;
    const recordSize = RECORD_HEAD + density.dim;
    const blocksAt = blocksWord(this.controlThreads, thread);
    // Blocks taken since the last release. The worker learns of them only once this turn's messages
    // are handled (setImmediate), so that a turn takes at most BLOCKS_IN_FLIGHT blocks and the
    // calling thread's own chains get their iterations between turns.
    let taken = 0;
    const release = (): void => {
      Atomics.sub(this.control, blocksAt, taken);
      taken = 0;
      Atomics.notify(this.control, blocksAt);
    };
    let running = false;
    const finished = (): void => {
      if (running) this.busy--;
      running = false;
      this.changed();
    };
    // The caller's callbacks run here, in the calling thread; one that throws stops the run.
    const report = (call: () => void): void => {
      if (this.callbackError !== null) return;
      try {
        call();
      } catch (error) {
        this.callbackError = { error };
        this.abort();
      }
    };
    slot.owner = (m) => {
      switch (m.kind) {
        case "draws":
          this.layout.onBlock?.(thread, Atomics.load(this.control, blocksAt));
          if (taken++ === 0) setImmediate(release);
          if (onDraw) report(() => {
            for (let i = 0; i < m.count; i++) onDraw(readRecord(m.records, i * recordSize, density.dim, s.firstChain));
          });
          return;
        case "adapted":
          report(() => options.onAdapted?.(m.chain, m.adaptation));
          return;
        case "reinitialised":
          report(() => options.onReinitialised?.(m.reinitialisation));
          return;
        case "done":
          this.ranges.push({ first: m.first, thread, result: m.result });
          return finished();
        case "paused":
          this.paused.push({ first: m.first, state: m.state });
          this.addPace(m.pace);
          return finished();
        case "error":
          this.fail(m.error);
          // The worker may have lost its density on the way: the next run sends it again.
          slot.holds = -1;
          return finished();
      }
    };
    slot.onState = () => {
      // A worker that dies holding chains fails the run; one that dies starting is only a lost
      // helper, unless the workers were to run every chain.
      if (slot.dead && (running || !this.callingThread)) this.fail(this.failure ?? { name: "Error", message: "a sampler worker thread stopped" });
      if (slot.dead && running) {
        this.busy--;
        running = false;
      }
      this.changed();
    };
    slot.worker?.ref();
    slot.start = (g, transfer) => {
      running = true;
      this.busy++;
      this.used.add(slot);
      const message: ToWorker = {
        kind: "run", densityId: this.id, threads: this.controlThreads, control: this.control, stuck: this.stuck, totalChains: this.s.chains, draws: onDraw !== undefined, keepDraws: this.options.keepDraws !== false, ...g,
        ...(slot.holds === this.id ? {} : { density: this.spec }),
        ...(this.layout.pauseAt !== undefined ? { pauseAt: this.layout.pauseAt } : {}),
      };
      slot.holds = this.id;
      slot.worker!.postMessage(message, transfer);
    };
  }

  // Every chain to the workers, in contiguous groups, as each worker becomes ready.
  private async allToWorkers(): Promise<void> {
    const { s, mine, control } = this;
    this.enlistWorkers();
    const groups = splitRows(0, s.chains, this.threads);
    while (groups.length > 0 && this.failure === null && Atomics.load(control, Control.MODE) === Mode.RUNNING) {
      for (const slot of this.idleReady()) {
        const g = groups.shift();
        if (!g) break;
        slot.start({ thread: mine.indexOf(slot) + 1, first: g.first, options: workerSettings(chainRangeOptions(this.options, s, g.first, g.count)) }, []);
      }
      if (groups.length > 0) {
        if (mine.every((slot) => slot.dead)) this.fail({ name: "Error", message: "no sampler worker thread could be started" });
        else await this.nextChange();
      }
    }
  }

  // The calling thread runs every chain until a worker is ready and its own pace says that the rest
  // of the run is worth sharing, then hands groups of its chains over (with where they stand) and
  // goes on with the first group; with more workers, it can hand over again as they become ready.
  private async sampleHere(): Promise<void> {
    const { control, layout } = this;
    const first = 0;
    let run = this.ownRun(first, this.s.chains, this.resume);
    let last = performance.now();
    let busySince = performance.now();
    let cpuSince = cpuMs();
    const work = { ms: 0, cpuMs: 0, chainIterations: 0 };
    // This thread's iterations since its chains came to it: their seconds and gradients.
    const log = new IterationLog();
    while (!run.done) {
      const mode = Atomics.load(control, Control.MODE);
      if (mode === Mode.ABORT) return void this.ranges.push({ first, thread: 0, result: run.result(true) });
      if (mode === Mode.STOP || mode === Mode.PAUSE) return this.commonStop(run, first, log);
      log.step(run);
      work.chainIterations += run.settings.chains;
      const timed = (performance.now() - this.handedAt) / 1000;
      if (!run.done && (layout.handBack?.(run.iterationsDone, timed) || (layout.pauseAt !== undefined && run.iterationsDone >= layout.pauseAt))) {
        Atomics.compareExchange(control, Control.MODE, Mode.RUNNING, Mode.PAUSE);
        continue;
      }
      const forced = layout.handOverAt !== undefined && run.iterationsDone === layout.handOverAt;
      if (forced || performance.now() - last >= this.every) {
        work.ms += performance.now() - busySince;
        work.cpuMs += cpuMs() - cpuSince;
        const kept = await this.maybeHandOver(run, first, forced, work, log);
        if (kept === null) return this.watchWorkers();
        run = kept;
        await yieldTurn();
        last = busySince = performance.now();
        cpuSince = cpuMs();
      }
    }
    this.ranges.push({ first, thread: 0, result: run.result(false) });
  }

  // Hands groups of `run`'s chains to ready workers when the calling thread's work left (at its
  // pace so far) is worth sharing; returns the run of the chains it keeps (`run` when none moved),
  // or null when it kept none (handOverAll).
  private async maybeHandOver(
    run: SamplingRun, first: number, forced: boolean, work: CallingThreadWork, log: IterationLog,
  ): Promise<SamplingRun | null> {
    const { s, mine, handOverAll } = this;
    const total = s.warmup + s.draws;
    if (!forced && !shouldEnlist(work, run.settings.chains * (total - run.iterationsDone), this.layout.enlistAfterSeconds)) return run;
    this.enlistWorkers();
    // Handing every chain over (keeping none) waits until every worker that is wanted is
    // ready; a forced hand-over (tests) waits for them, while any live worker has no group yet
    // (one that has had its group, from an earlier hand-over, never becomes idle in this run).
    const keep = handOverAll ? 0 : 1;
    const wanted = (): number => (handOverAll ? Math.min(run.settings.chains, mine.filter((slot) => !slot.dead).length) : 1);
    const waiting = (): boolean => mine.some((slot) => !slot.dead && !this.used.has(slot));
    while (forced && this.idleReady().length < wanted() && waiting()) await this.nextChange();
    const ready = this.idleReady().length >= wanted() ? this.idleReady().slice(0, run.settings.chains - keep) : [];
    if (ready.length === 0 || run.done) return run;
    const parts = splitRows(0, run.settings.chains, ready.length + keep);
    const states = parts.map((p) => run.handOver(p.first, p.count));
    this.handedAt = performance.now();
    log.clear();
    parts.slice(keep).forEach((p, k) => {
      const state = states[k + keep]!;
      const slot = ready[k]!;
      slot.start({ thread: mine.indexOf(slot) + 1, first: first + p.first, options: workerSettings(chainRangeOptions(this.options, s, first + p.first, p.count)), state }, stateBuffers(state));
    });
    if (handOverAll) return null;
    return this.ownRun(first, parts[0]!.count, states[0]);
  }

  // The calling thread once the workers hold every chain: it asks handBack every few milliseconds
  // (with the fewest iterations any worker has done) and settles a stop or a pause, until the
  // workers are done.
  private async watchWorkers(): Promise<void> {
    const { control, layout, mine } = this;
    let settled = false;
    while (this.busy > 0) {
      const mode = Atomics.load(control, Control.MODE);
      if (mode === Mode.RUNNING && layout.handBack) {
        let fewest = Infinity;
        for (const slot of this.used) fewest = Math.min(fewest, Atomics.load(control, progressWord(this.controlThreads, mine.indexOf(slot) + 1)));
        if (Number.isFinite(fewest) && layout.handBack(fewest, (performance.now() - this.handedAt) / 1000)) Atomics.compareExchange(control, Control.MODE, Mode.RUNNING, Mode.PAUSE);
      }
      const now = Atomics.load(control, Control.MODE);
      if (!settled && (now === Mode.STOP || now === Mode.PAUSE)) {
        settled = true;
        await this.settleStop(null);
      }
      await Promise.race([this.nextChange(), sleep(2)]);
    }
  }

  // A run of the calling thread over rows first … first+count−1, continued from `state` when given.
  private ownRun(first: number, count: number, state: RunState | undefined): SamplingRun {
    const { onDraw, onAdapted, onReinitialised } = this.options;
    const output: OutputOptions = {
      ...(this.options.keepDraws === false ? { keepDraws: false } : {}),
      ...(onDraw ? { onDraw: (d) => onDraw(first === 0 ? d : { ...d, chain: first + d.chain }) } : {}),
      ...(onAdapted ? { onAdapted: (c, a) => onAdapted(first + c, a) } : {}),
      ...(onReinitialised ? { onReinitialised: (r) => onReinitialised({ ...r, chain: first + r.chain }) } : {}),
    };
    const run = new SamplingRun(this.density, { ...chainRangeOptions(this.options, this.s, first, count), ...output });
    if (state) run.restore(state);
    run.shareStuckEvidence(new SharedEvidenceExchange(this.stuck, this.s.firstChain, first, this.s.chains, this.s.warmup, this.control));
    return run;
  }

  // A stop asked for: every thread pauses at its next iteration boundary and all go on to the
  // furthest of them, so that every chain has as many draws (threads that already finished are
  // ahead). `own` is the calling thread's iterations done, when it runs chains. Settled once.
  private async settleStop(own: number | null): Promise<number> {
    const { control, controlThreads, mine, used } = this;
    const groups = [...used].map((slot) => groupWord(controlThreads, mine.indexOf(slot) + 1));
    while (groups.some((g) => Atomics.load(control, g) === Group.RUNNING) && Atomics.load(control, Control.MODE) !== Mode.ABORT) await sleep(1);
    let stopAt = own ?? 0;
    let finished = false;
    used.forEach((slot) => {
      const thread = mine.indexOf(slot) + 1;
      const group = Atomics.load(control, groupWord(controlThreads, thread));
      if (group === Group.PAUSED) stopAt = Math.max(stopAt, Atomics.load(control, Control.POSITION + thread));
      if (group === Group.FINISHED) finished = true;
    });
    // A pause once some group has ended cannot hand back chains that all stand at one iteration:
    // every group runs to the end instead.
    if (finished && Atomics.load(control, Control.MODE) === Mode.PAUSE) stopAt = this.s.warmup + this.s.draws;
    if (Atomics.compareExchange(control, Control.STOP_AT, -1, stopAt) === -1) Atomics.notify(control, Control.STOP_AT);
    return Atomics.load(control, Control.STOP_AT);
  }

  // The calling thread's part in a stop or a pause: its chains go on to the common iteration.
  private async commonStop(run: SamplingRun, first: number, log: IterationLog): Promise<void> {
    const { control } = this;
    const target = await this.settleStop(run.iterationsDone);
    let last = performance.now();
    while (!run.done && run.iterationsDone < target && Atomics.load(control, Control.MODE) !== Mode.ABORT) {
      log.step(run);
      if (performance.now() - last >= this.every) {
        await yieldTurn();
        last = performance.now();
      }
    }
    if (!run.done && Atomics.load(control, Control.MODE) === Mode.PAUSE) {
      const state = run.handOver(0, run.settings.chains);
      this.paused.push({ first, state });
      this.addPace(log.secondHalf());
      return;
    }
    this.ranges.push({ first, thread: 0, result: run.result(!run.done) });
  }

  // A run of rows first … of a paused group, to end it as a stopped one.
  private stoppedRun(first: number, state: RunState): SamplingRun {
    const run = new SamplingRun(this.density, { ...chainRangeOptions(this.options, this.s, first, state.chains.length), ...(this.options.keepDraws === false ? { keepDraws: false } : {}) });
    run.restore(state);
    return run;
  }
}

// One state of every chain from the paused groups' (all at one iteration); its time is the run's wall time.
function joined(groups: readonly { first: number; state: RunState }[], wallSeconds: number): RunState {
  const sorted = [...groups].sort((a, b) => a.first - b.first);
  const busy = sorted.reduce((a, g) => a + g.state.warmupMs + g.state.samplingMs, 0);
  const warmupShare = busy > 0 ? sorted.reduce((a, g) => a + g.state.warmupMs, 0) / busy : 1;
  const at = sorted[0]!.state;
  if (sorted.some((g) => g.state.iteration !== at.iteration)) throw new Error("sampleThreads: paused groups stand at different iterations");
  return {
    iteration: at.iteration, started: at.started, warmupMs: wallSeconds * 1000 * warmupShare, samplingMs: wallSeconds * 1000 * (1 - warmupShare),
    chains: sorted.flatMap((g) => g.state.chains),
  };
}

/**
 * Chains on several threads. The calling thread starts sampling every chain at once, as on one
 * thread. Once its own pace says that more than half a second of work is left, it enlists worker
 * threads (a worker costs a tenth of a second or more to start, see worker-script.ts, and on a
 * machine whose cores are busy a second thread slows the first, so a short run stays on one
 * thread, as fast as it was); as soon as workers are ready, it hands them contiguous groups of its
 * chains between two iterations, with where they stand (SamplingRun.handOver), and goes on with the
 * first group. Every chain therefore draws the same bits wherever it runs. Draws, adaptations and
 * errors come back as messages; onDraw and onAdapted are called in the calling thread, each chain's
 * in order. A stop (the signal) ends every thread after the same iteration (see settleStop), so
 * that a stopped run has as many draws in every chain as a run on one thread has.
 *
 * The workers stay for later runs (idle, not keeping the process alive), holding the last density
 * they ran; prestartSamplerThreads starts them ahead of a run and stopSamplerThreads ends them.
 */
import { Worker } from "node:worker_threads";
import type { ModelDensity } from "../../density/model-density.ts";
import type { SharedDensity } from "../../density/shared-density.ts";
import type { BatchedDensity } from "../density.ts";
import { AdaptationError, InitializationError, SamplerOptionError, StepSizeError } from "../errors.ts";
import { Metric } from "../metric.ts";
import {
  chainRangeOptions, checkChainOptions, resolveSettings, SamplingRun, type ChainAdaptationResult, type ChainStats,
  type ResolvedSampleSettings, type RunState, type SampleOptions, type SampleResult,
} from "../run.ts";
import {
  Control, controlWords, Group, groupWord, Mode, progressWord, readRecord, RECORD_HEAD, type FromWorker, type RunGroup, type ThreadError, type ToWorker,
  type WorkerSetup,
} from "./protocol.ts";
import { IterationLog } from "../pace.ts";
import { stateBuffers } from "./state-buffers.ts";
import { workerScript } from "./worker-script.ts";

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

// One worker thread of the process-wide pool.
interface Slot {
  worker: Worker | null;
  ready: boolean;
  dead: boolean;
  /** Density id the worker holds. */
  holds: number;
  /** The run using this worker, which receives its messages. */
  owner: ((m: FromWorker) => void) | null;
  /** Called when the worker becomes ready or dies. */
  onState: (() => void) | null;
  /** Sends the worker a group of the run that owns it. */
  start: StartFn | null;
}

const slots: Slot[] = [];
// Projected seconds of the calling thread's work beyond which a run enlists its workers.
const ENLIST_AFTER_SECONDS = 0.5;
let densityIds = 0;
const densityId = new WeakMap<SharedDensity, number>();

/** Starts worker threads for threaded runs ahead of time, so that a run finds them ready; returns at once. */
export function prestartSamplerThreads(workers: number): void {
  const free = slots.filter((s) => !s.dead && s.owner === null).length;
  for (let k = free; k < workers; k++) slots.push(startSlot());
}

/** Ends every sampler worker thread (a later threaded run starts new ones). */
export async function stopSamplerThreads(): Promise<void> {
  const all = slots.splice(0);
  await Promise.all(all.map((s) => s.worker?.terminate()));
}

function startSlot(): Slot {
  const slot: Slot = { worker: null, ready: false, dead: false, holds: -1, owner: null, onState: null, start: null };
  const died = (): void => {
    if (slot.dead) return;
    slot.dead = true;
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    slot.onState?.();
  };
  workerScript().then(
    ({ url, entry }) => {
      const worker = new Worker(url, { workerData: { entry } satisfies WorkerSetup });
      slot.worker = worker;
      worker.on("message", (m: FromWorker) => {
        if (m.kind === "ready") {
          slot.ready = true;
          slot.onState?.();
        } else slot.owner?.(m);
      });
      worker.on("error", (e) => {
        // A worker that fails before it is ready (its script did not load) is only a lost helper:
        // its run goes on without it (onState fails a run whose chains were all for the workers).
        if (slot.ready) slot.owner?.({ kind: "error", error: { name: e.name, message: `sampler worker thread: ${e.message}`, ...(e.stack ? { stack: e.stack } : {}) } });
        died();
      });
      worker.on("exit", died);
      // Idle workers must not keep the process alive; a run holds them (ref) while it uses them.
      // After the listeners: adding a 'message' listener refs the worker's port again.
      if (slot.owner === null) worker.unref();
    },
    died,
  );
  return slot;
}

// A range of chains done by some thread.
interface RangeResult {
  readonly first: number;
  readonly thread: number;
  readonly result: SampleResult;
}

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
  const callingThread = layout.callingThreadSamples ?? true;
  if (resume !== undefined && !callingThread) throw new SamplerOptionError("threads: a resumed run starts in the calling thread");
  const threads = Math.min(options.threads ?? 1, s.chains);
  const handOverAll = callingThread && layout.handOverAll === true && threads > 1;
  const workerCount = callingThread && !handOverAll ? threads - 1 : threads;
  const every = options.yieldEveryMs ?? 50;
  const signal = options.signal;
  // Thread 0 is the calling thread; workers are 1 … workerCount.
  const controlThreads = workerCount + 1;
  const control = controlWords(controlThreads);
  const t0 = performance.now();

  const spec = share.call(density);
  let id = densityId.get(spec);
  if (id === undefined) densityId.set(spec, (id = densityIds++));
  const ranges: RangeResult[] = [];
  // Groups paused (handBack): where their chains stand, and each thread's pace over the second
  // half of its group's time.
  const paused: { first: number; state: RunState }[] = [];
  const pace = { seconds: 0, gradients: 0, threads: 0 };
  const addPace = (p: { seconds: number; gradients: number }): void => {
    pace.seconds += p.seconds;
    pace.gradients += p.gradients;
    pace.threads++;
  };
  // When the chains went to the threads that hold them now (the run's start, then each hand-over).
  let handedAt = performance.now();
  let failure: ThreadError | null = null;
  const abort = (): void => {
    Atomics.store(control, Control.MODE, Mode.ABORT);
    // Workers waiting for a common stop wake up and stop.
    Atomics.compareExchange(control, Control.STOP_AT, -1, 0);
    Atomics.notify(control, Control.STOP_AT);
  };
  const fail = (e: ThreadError): void => {
    failure ??= e;
    abort();
  };
  // Whether the calling thread is running chains: then it settles a stop itself, at its next
  // iteration boundary; otherwise the stop is settled here, as soon as it is asked for.
  let ownRunning = false;
  const onAbort = (): void => {
    if (Atomics.compareExchange(control, Control.MODE, Mode.RUNNING, Mode.STOP) !== Mode.RUNNING) return;
    if (!ownRunning) void settleStop(null);
  };
  signal?.addEventListener("abort", onAbort);
  const recordSize = RECORD_HEAD + density.dim;
  const onDraw = options.onDraw;

  // This run's workers (enlistWorkers): free ones of the pool, started where there are too few.
  // A worker runs at most one group of chains per run; `busy` counts the groups out.
  const mine: Slot[] = [];
  const used = new Set<Slot>();
  let busy = 0;
  let wake: (() => void) | null = null;
  const changed = (): void => {
    wake?.();
    wake = null;
  };
  const enlistWorkers = (): void => {
    if (mine.length > 0) return;
    prestartSamplerThreads(workerCount);
    mine.push(...slots.filter((slot) => !slot.dead && slot.owner === null).slice(0, workerCount));
    mine.forEach((slot, w) => {
      const thread = w + 1;
      let running = false;
      slot.owner = (m) => {
        switch (m.kind) {
          case "draws":
            if (onDraw) for (let i = 0; i < m.count; i++) onDraw(readRecord(m.records, i * recordSize, density.dim, s.firstChain));
            return;
          case "adapted":
            options.onAdapted?.(m.chain, m.adaptation);
            return;
          case "done":
            ranges.push({ first: m.first, thread, result: m.result });
            if (running) busy--;
            running = false;
            return changed();
          case "paused":
            paused.push({ first: m.first, state: m.state });
            addPace(m.pace);
            if (running) busy--;
            running = false;
            return changed();
          case "error":
            fail(m.error);
            if (running) busy--;
            running = false;
            // The worker may have lost its density on the way: the next run sends it again.
            slot.holds = -1;
            return changed();
        }
      };
      slot.onState = () => {
        // A worker that dies holding chains fails the run; one that dies starting is only a lost
        // helper, unless the workers were to run every chain.
        if (slot.dead && (running || !callingThread)) fail(failure ?? { name: "Error", message: "a sampler worker thread stopped" });
        if (slot.dead && running) {
          busy--;
          running = false;
        }
        changed();
      };
      slot.worker?.ref();
      slot.start = (g, transfer) => {
        running = true;
        busy++;
        used.add(slot);
        const message: ToWorker = {
          kind: "run", densityId: id, threads: controlThreads, control, draws: onDraw !== undefined, ...g, ...(slot.holds === id ? {} : { density: spec }),
          ...(layout.pauseAt !== undefined ? { pauseAt: layout.pauseAt } : {}),
        };
        slot.holds = id;
        slot.worker!.postMessage(message, transfer);
      };
    });
  };
  const idleReady = (): (Slot & { start: StartFn })[] =>
    mine.filter((slot): slot is Slot & { start: StartFn } => slot.ready && !slot.dead && !used.has(slot) && slot.start !== null);
  // Resolves when a worker becomes ready, finishes a group or dies.
  const nextChange = (): Promise<void> => new Promise((resolve) => (wake = resolve));

  let callingError: unknown = null;
  if (signal?.aborted) onAbort();
  try {
    if (!callingThread) {
      // Every chain to the workers, in contiguous groups, as each worker becomes ready.
      enlistWorkers();
      const groups = splitRows(0, s.chains, threads);
      while (groups.length > 0 && failure === null && Atomics.load(control, Control.MODE) === Mode.RUNNING) {
        for (const slot of idleReady()) {
          const g = groups.shift();
          if (!g) break;
          slot.start({ thread: mine.indexOf(slot) + 1, first: g.first, options: chainRangeOptions(options, s, g.first, g.count) }, []);
        }
        if (groups.length > 0) {
          if (mine.every((slot) => slot.dead)) fail({ name: "Error", message: "no sampler worker thread could be started" });
          else await nextChange();
        }
      }
    } else {
      try {
        ownRunning = true;
        await sampleHere();
      } catch (e) {
        // The workers stop after their current iteration; the run waits for them so that none is
        // still running a group of this run when the next run takes it.
        callingError = e;
        abort();
      } finally {
        ownRunning = false;
      }
      const mode = Atomics.load(control, Control.MODE);
      if (mode === Mode.STOP || mode === Mode.PAUSE) await settleStop(null);
    }
    while (busy > 0) await nextChange();
  } finally {
    signal?.removeEventListener("abort", onAbort);
    for (const slot of mine) {
      slot.owner = null;
      slot.onState = null;
      slot.start = null;
      slot.worker?.unref();
    }
  }
  if (callingError !== null) throw callingError;
  if (failure) throw fromThreadError(failure);
  // A resumed run's wall time includes the time its chains ran elsewhere before.
  const before = resume === undefined ? 0 : (resume.warmupMs + resume.samplingMs) / 1000;
  const wall = before + (performance.now() - t0) / 1000;
  if (paused.length > 0 && ranges.length === 0) {
    return { kind: "paused", state: joined(paused, wall), pace: { ...pace } };
  }
  // A pause that met a stop or an error: the paused groups end as stopped ones.
  for (const p of paused) ranges.push({ first: p.first, thread: -1, result: stoppedRun(p.first, p.state).result(true) });
  return { kind: "result", result: merge(s, density.dim, ranges, wall, signal?.aborted === true || paused.length > 0) };

  // The calling thread runs every chain until a worker is ready and its own pace says that the rest
  // of the run is worth sharing, then hands groups of its chains over (with where they stand) and
  // goes on with the first group; with more workers, it can hand over again as they become ready.
  async function sampleHere(): Promise<void> {
    const first = 0;
    let run = ownRun(first, s.chains, resume);
    let last = performance.now();
    let busySince = performance.now();
    let workMs = 0;
    let chainIterations = 0;
    const total = s.warmup + s.draws;
    // This thread's iterations since its chains came to it: their seconds and gradients.
    const log = new IterationLog();
    while (!run.done) {
      const mode = Atomics.load(control, Control.MODE);
      if (mode === Mode.ABORT) return void ranges.push({ first, thread: 0, result: run.result(true) });
      if (mode === Mode.STOP || mode === Mode.PAUSE) return commonStop(run, first, log);
      log.step(run);
      chainIterations += run.settings.chains;
      const timed = (performance.now() - handedAt) / 1000;
      if (!run.done && (layout.handBack?.(run.iterationsDone, timed) || (layout.pauseAt !== undefined && run.iterationsDone >= layout.pauseAt))) {
        Atomics.compareExchange(control, Control.MODE, Mode.RUNNING, Mode.PAUSE);
        continue;
      }
      const forced = layout.handOverAt !== undefined && run.iterationsDone === layout.handOverAt;
      if (forced || performance.now() - last >= every) {
        workMs += performance.now() - busySince;
        // Seconds of this thread's own work left at its pace so far.
        const left = ((run.settings.chains * (total - run.iterationsDone)) / chainIterations) * (workMs / 1000);
        if (forced || left > (layout.enlistAfterSeconds ?? ENLIST_AFTER_SECONDS)) {
          enlistWorkers();
          // Handing every chain over (keeping none) waits until every worker that is wanted is
          // ready; a forced hand-over (tests) waits for them.
          const keep = handOverAll ? 0 : 1;
          const wanted = (): number => (handOverAll ? Math.min(run.settings.chains, mine.filter((slot) => !slot.dead).length) : 1);
          while (forced && idleReady().length < wanted() && mine.some((slot) => !slot.dead)) await nextChange();
          const ready = idleReady().length >= wanted() ? idleReady().slice(0, run.settings.chains - keep) : [];
          if (ready.length > 0 && !run.done) {
            const parts = splitRows(0, run.settings.chains, ready.length + keep);
            const states = parts.map((p) => run.handOver(p.first, p.count));
            handedAt = performance.now();
            log.clear();
            parts.slice(keep).forEach((p, k) => {
              const state = states[k + keep]!;
              ready[k]!.start({ thread: mine.indexOf(ready[k]!) + 1, first: first + p.first, options: chainRangeOptions(options, s, first + p.first, p.count), state }, stateBuffers(state));
            });
            if (handOverAll) return watchWorkers();
            run = ownRun(first, parts[0]!.count, states[0]);
          }
        }
        await new Promise<void>((resolve) => setImmediate(resolve));
        last = busySince = performance.now();
      }
    }
    ranges.push({ first, thread: 0, result: run.result(false) });
  }

  // The calling thread once the workers hold every chain: it asks handBack every few milliseconds
  // (with the fewest iterations any worker has done) and settles a stop or a pause, until the
  // workers are done.
  async function watchWorkers(): Promise<void> {
    let settled = false;
    while (busy > 0) {
      const mode = Atomics.load(control, Control.MODE);
      if (mode === Mode.RUNNING && layout.handBack) {
        let fewest = Infinity;
        for (const slot of used) fewest = Math.min(fewest, Atomics.load(control, progressWord(controlThreads, mine.indexOf(slot) + 1)));
        if (Number.isFinite(fewest) && layout.handBack(fewest, (performance.now() - handedAt) / 1000)) Atomics.compareExchange(control, Control.MODE, Mode.RUNNING, Mode.PAUSE);
      }
      const now = Atomics.load(control, Control.MODE);
      if (!settled && (now === Mode.STOP || now === Mode.PAUSE)) {
        settled = true;
        await settleStop(null);
      }
      await Promise.race([nextChange(), new Promise<void>((resolve) => setTimeout(resolve, 2))]);
    }
  }

  // A run of the calling thread over rows first … first+count−1, continued from `state` when given.
  function ownRun(first: number, count: number, state: RunState | undefined): SamplingRun {
    const onAdapted = options.onAdapted;
    const run = new SamplingRun(density, {
      ...chainRangeOptions(options, s, first, count),
      ...(onDraw ? { onDraw: (d) => onDraw(first === 0 ? d : { ...d, chain: first + d.chain }) } : {}),
      ...(onAdapted ? { onAdapted: (c, a) => onAdapted(first + c, a) } : {}),
    });
    if (state) run.restore(state);
    return run;
  }

  // A stop asked for: every thread pauses at its next iteration boundary and all go on to the
  // furthest of them, so that every chain has as many draws (threads that already finished are
  // ahead). `own` is the calling thread's iterations done, when it runs chains. Settled once.
  async function settleStop(own: number | null): Promise<number> {
    const groups = [...used].map((slot) => groupWord(controlThreads, mine.indexOf(slot) + 1));
    while (groups.some((g) => Atomics.load(control, g) === Group.RUNNING) && Atomics.load(control, Control.MODE) !== Mode.ABORT) {
      await new Promise<void>((resolve) => setTimeout(resolve, 1));
    }
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
    if (finished && Atomics.load(control, Control.MODE) === Mode.PAUSE) stopAt = s.warmup + s.draws;
    if (Atomics.compareExchange(control, Control.STOP_AT, -1, stopAt) === -1) Atomics.notify(control, Control.STOP_AT);
    return Atomics.load(control, Control.STOP_AT);
  }

  // The calling thread's part in a stop or a pause: its chains go on to the common iteration.
  async function commonStop(run: SamplingRun, first: number, log: IterationLog): Promise<void> {
    const target = await settleStop(run.iterationsDone);
    let last = performance.now();
    while (!run.done && run.iterationsDone < target && Atomics.load(control, Control.MODE) !== Mode.ABORT) {
      log.step(run);
      if (performance.now() - last >= every) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        last = performance.now();
      }
    }
    if (!run.done && Atomics.load(control, Control.MODE) === Mode.PAUSE) {
      const state = run.handOver(0, run.settings.chains);
      paused.push({ first, state });
      addPace(log.secondHalf());
      return;
    }
    ranges.push({ first, thread: 0, result: run.result(!run.done) });
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

  // A run of rows first … of a paused group, to end it as a stopped one.
  function stoppedRun(first: number, state: RunState): SamplingRun {
    const run = new SamplingRun(density, chainRangeOptions(options, s, first, state.chains.length));
    run.restore(state);
    return run;
  }
}

type StartFn = (g: Omit<RunGroup, "kind" | "densityId" | "density" | "threads" | "control" | "draws">, transfer: ArrayBuffer[]) => void;

// Rows first … first+count−1 in `parts` contiguous groups as equal as can be (the first ones larger).
function splitRows(first: number, count: number, parts: number): { first: number; count: number }[] {
  const out: { first: number; count: number }[] = [];
  let at = first;
  for (let k = 0; k < parts; k++) {
    const n = Math.floor(count / parts) + (k < count % parts ? 1 : 0);
    if (n > 0) out.push({ first: at, count: n });
    at += n;
  }
  return out;
}

// One result for the whole run from the ranges' results; chains never started have no draws.
function merge(s: ResolvedSampleSettings, dim: number, ranges: readonly RangeResult[], wallSeconds: number, aborted: boolean): SampleResult {
  // Not new Array(n): map skips the holes of a sparse array, and chains never started are holes here.
  const perChain = Array.from({ length: s.chains }, (): { result: SampleResult; row: number; thread: number } | undefined => undefined);
  for (const r of ranges) for (let row = 0; row < r.result.settings.chains; row++) perChain[r.first + row] = { result: r.result, row, thread: r.thread };
  let started = true;
  let drawsDone = s.draws;
  let warmupDone = s.warmup;
  for (const p of perChain) {
    if (!p) started = false;
    drawsDone = Math.min(drawsDone, p ? p.result.drawsDone : 0);
    warmupDone = Math.min(warmupDone, p ? p.result.warmupDone : 0);
  }
  const trim = (a: Float64Array, n: number): Float64Array => (a.length === n ? a : a.slice(0, n));
  const empty = (): ChainStats => ({
    lp: new Float64Array(0), acceptStat: new Float64Array(0), stepSize: new Float64Array(0), treeDepth: new Float64Array(0),
    nLeapfrog: new Float64Array(0), divergent: new Float64Array(0), energy: new Float64Array(0),
  });
  const unit = new Metric(s.metric, dim);
  let warmupTime = 0;
  let samplingTime = 0;
  for (const r of ranges) {
    warmupTime += r.result.timing.warmupSeconds;
    samplingTime += r.result.timing.samplingSeconds;
  }
  const warmupShare = warmupTime + samplingTime > 0 ? warmupTime / (warmupTime + samplingTime) : 0;
  return {
    dim,
    settings: s,
    draws: perChain.map((p) => (p ? trim(p.result.draws[p.row]!, drawsDone * dim) : new Float64Array(0))),
    stats: perChain.map((p) => {
      if (!p) return empty();
      const st = p.result.stats[p.row]!;
      return {
        lp: trim(st.lp, drawsDone), acceptStat: trim(st.acceptStat, drawsDone), stepSize: trim(st.stepSize, drawsDone),
        treeDepth: trim(st.treeDepth, drawsDone), nLeapfrog: trim(st.nLeapfrog, drawsDone), divergent: trim(st.divergent, drawsDone),
        energy: trim(st.energy, drawsDone),
      };
    }),
    adaptation: perChain.map(
      (p): ChainAdaptationResult =>
        p ? p.result.adaptation[p.row]! : { stepSize: s.stepSize, metric: s.metric, invMetric: Float64Array.from(unit.inverse) },
    ),
    warmupDone,
    drawsDone,
    aborted: aborted || !started || ranges.some((r) => r.result.aborted),
    gradientEvaluations: perChain.map((p) => (p ? p.result.gradientEvaluations[p.row]! : 0)),
    timing: { warmupSeconds: wallSeconds * warmupShare, samplingSeconds: wallSeconds * (1 - warmupShare) },
    threads: { used: new Set(ranges.map((r) => r.thread)).size, chainThread: perChain.map((p) => (p ? p.thread : -1)) },
  };
}

// The error a worker reported, as the class the single-threaded sampler would have thrown.
function fromThreadError(t: ThreadError): Error {
  let e: Error;
  if (t.chain !== undefined && t.name === "InitializationError") e = new InitializationError(t.chain, "");
  else if (t.chain !== undefined && t.name === "StepSizeError") e = new StepSizeError(t.chain, "");
  else if (t.chain !== undefined && t.name === "AdaptationError") e = new AdaptationError(t.chain, "");
  else if (t.name === "SamplerOptionError") e = new SamplerOptionError("");
  else {
    e = new Error("");
    e.name = t.name;
  }
  e.message = t.message;
  if (t.stack !== undefined) e.stack = t.stack;
  return e;
}

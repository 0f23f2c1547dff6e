/**
 * Chains on several threads. The calling thread and threads−1 worker threads share the chains:
 * whenever a thread is free it takes a share of the chains not yet started (a ceil(left/threads)
 * range, guided self-scheduling) and runs them as a run of their own (chainRangeOptions), so that
 * every chain's draws are the same bits wherever it ran. A worker takes a while to start (a tenth
 * of a second with the bundled worker script, see worker-script.ts) while the calling thread starts
 * sampling at once: on a short run it has taken every chain before a worker is ready, and the run
 * costs what one thread costs; on a long one the workers take their shares as soon as they can.
 * Draws, adaptations and errors come back as messages; onDraw and onAdapted are called in the
 * calling thread, each chain's in order.
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
  type ResolvedSampleSettings, type SampleOptions, type SampleResult,
} from "../run.ts";
import { readRecord, RECORD_HEAD, type FromWorker, type ThreadError, type ToWorker, type WorkerSetup } from "./protocol.ts";
import { workerScript } from "./worker-script.ts";

/** How a threaded run is laid out (for tests and benchmarks). */
export interface ThreadLayout {
  /** Whether the calling thread samples too (true); false leaves every chain to the workers. */
  readonly callingThreadSamples?: boolean;
}

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
}

const slots: Slot[] = [];
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
  const slot: Slot = { worker: null, ready: false, dead: false, holds: -1, owner: null, onState: null };
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
      // Idle workers must not keep the process alive; a run holds them (ref) while it uses them.
      if (slot.owner === null) worker.unref();
      slot.worker = worker;
      worker.on("message", (m: FromWorker) => {
        if (m.kind === "ready") {
          slot.ready = true;
          slot.onState?.();
        } else slot.owner?.(m);
      });
      worker.on("error", (e) => {
        slot.owner?.({ kind: "error", error: { name: e.name, message: `sampler worker thread: ${e.message}`, ...(e.stack ? { stack: e.stack } : {}) } });
        died();
      });
      worker.on("exit", died);
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

/** Runs the chains on `options.threads` threads (see the module comment); the density must come from modelDensity. */
export async function sampleThreads(
  density: BatchedDensity,
  options: SampleOptions & { yieldEveryMs?: number },
  layout: ThreadLayout = {},
): Promise<SampleResult> {
  if (options.transitionRunner) throw new SamplerOptionError("threads: a transition runner (a GPU) runs every chain itself; leave threads at 1");
  const share = (density as Partial<ModelDensity>).share;
  if (typeof share !== "function") {
    throw new SamplerOptionError("threads: worker threads rebuild the density from its shared form; pass a density made by modelDensity on the CPU backend, or leave threads at 1");
  }
  const s = resolveSettings(options);
  checkChainOptions(options, s, density.dim);
  const callingThread = layout.callingThreadSamples ?? true;
  const threads = Math.min(options.threads ?? 1, s.chains);
  const workerCount = callingThread ? threads - 1 : threads;
  const every = options.yieldEveryMs ?? 50;
  const signal = options.signal;
  const stop = new Int32Array(new SharedArrayBuffer(4));
  const onAbort = (): void => void Atomics.store(stop, 0, 1);
  signal?.addEventListener("abort", onAbort);
  if (signal?.aborted) onAbort();

  let next = 0;
  // The next range for a free thread, or null when every chain has been taken (or the run stops).
  const take = (): { first: number; count: number } | null => {
    if (next >= s.chains || Atomics.load(stop, 0) !== 0) return null;
    const count = Math.max(1, Math.ceil((s.chains - next) / threads));
    const first = next;
    next += count;
    return { first, count };
  };

  const spec = share.call(density);
  let id = densityId.get(spec);
  if (id === undefined) densityId.set(spec, (id = densityIds++));
  const ranges: RangeResult[] = [];
  let failure: ThreadError | null = null;
  const fail = (e: ThreadError): void => {
    failure ??= e;
    Atomics.store(stop, 0, 1);
  };
  const recordSize = RECORD_HEAD + density.dim;
  const onDraw = options.onDraw;

  // This run's workers: free ones of the pool, started now where there are too few.
  prestartSamplerThreads(workerCount);
  const mine = slots.filter((slot) => !slot.dead && slot.owner === null).slice(0, workerCount);
  let active = 0;
  let settle: (() => void) | null = null;
  const allIdle = new Promise<void>((resolve) => (settle = resolve));
  // The run is over when the calling thread is done, no worker holds a range and none is left to take.
  const check = (): void => {
    if (active === 0 && callingDone && (next >= s.chains || Atomics.load(stop, 0) !== 0)) settle?.();
  };
  let callingDone = !callingThread;
  const t0 = performance.now();
  mine.forEach((slot, w) => {
    const thread = callingThread ? w + 1 : w;
    let busy = false;
    const assign = (): void => {
      if (busy || !slot.ready || slot.dead || slot.owner !== handler) return;
      const range = take();
      if (range === null) return check();
      busy = true;
      active++;
      const first = range.first;
      const message: ToWorker = {
        kind: "run", densityId: id, first, options: chainRangeOptions(options, s, first, range.count), stop, draws: onDraw !== undefined,
        ...(slot.holds === id ? {} : { density: spec }),
      };
      slot.holds = id;
      slot.worker!.postMessage(message);
    };
    const finishRange = (): void => {
      busy = false;
      active--;
    };
    const handler = (m: FromWorker): void => {
      switch (m.kind) {
        case "draws":
          if (onDraw) for (let i = 0; i < m.count; i++) onDraw(readRecord(m.records, i * recordSize, density.dim, s.firstChain));
          return;
        case "adapted":
          options.onAdapted?.(m.chain, m.adaptation);
          return;
        case "done":
          ranges.push({ first: m.first, thread, result: m.result });
          finishRange();
          assign();
          return check();
        case "error":
          fail(m.error);
          if (busy) finishRange();
          slot.holds = -1;
          return check();
      }
    };
    slot.owner = handler;
    slot.worker?.ref();
    slot.onState = () => {
      if (slot.owner !== handler) return;
      if (slot.dead) {
        // A worker that dies holding chains fails the run; one that dies starting is a lost helper,
        // unless the workers were to run every chain.
        if (busy) finishRange();
        if (busy || !callingThread) fail(failure ?? { name: "Error", message: "a sampler worker thread stopped" });
        return check();
      }
      slot.worker?.ref();
      assign();
    };
    assign();
  });
  if (!callingThread && mine.length === 0) throw new SamplerOptionError("threads: no sampler worker thread could be started");

  let callingError: unknown = null;
  try {
    if (callingThread) {
      try {
        await sampleHere(density, options, s, take, every, () => Atomics.load(stop, 0) !== 0, ranges);
      } catch (e) {
        // The workers stop after their current iteration; the run waits for them so that none is
        // still running a range of this run when the next run takes it.
        callingError = e;
        Atomics.store(stop, 0, 1);
      }
      callingDone = true;
    }
    check();
    await allIdle;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    for (const slot of mine) {
      if (slot.owner === null) continue;
      slot.owner = null;
      slot.onState = null;
      slot.worker?.unref();
    }
  }
  if (callingError !== null) throw callingError;
  if (failure) throw fromThreadError(failure);
  return merge(s, density.dim, ranges, (performance.now() - t0) / 1000, signal?.aborted === true);
}

// The calling thread's share: ranges run as sampleAsync runs them, yielding to the event loop (which
// also delivers the workers' messages) every `every` ms.
async function sampleHere(
  density: BatchedDensity, options: SampleOptions, s: ResolvedSampleSettings, take: () => { first: number; count: number } | null,
  every: number, stopped: () => boolean, ranges: RangeResult[],
): Promise<void> {
  let last = performance.now();
  for (let range = take(); range !== null; range = take()) {
    const { first } = range;
    const onDraw = options.onDraw;
    const onAdapted = options.onAdapted;
    const run = new SamplingRun(density, {
      ...chainRangeOptions(options, s, first, range.count),
      ...(onDraw ? { onDraw: (d) => onDraw({ ...d, chain: first + d.chain }) } : {}),
      ...(onAdapted ? { onAdapted: (c, a) => onAdapted(first + c, a) } : {}),
    });
    let aborted = false;
    while (!run.done) {
      if (stopped()) {
        aborted = true;
        break;
      }
      run.step();
      if (performance.now() - last >= every) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        last = performance.now();
      }
    }
    ranges.push({ first, thread: 0, result: run.result(aborted) });
  }
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

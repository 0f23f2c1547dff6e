/**
 * What the calling thread and its sampler workers say to each other. A worker starts with nothing;
 * each "run" message gives it a group of chains (and where they stand, when the calling thread ran
 * them first), with the density whenever it is not the one the worker already holds (the graph as
 * data, the data in shared memory). The worker reports every iteration's draw in batches (one
 * Float64Array of records), each chain's adaptation when its warmup ends, and the group's result
 * when it is done, or where its chains stand when the run is paused (their state, to go on
 * elsewhere). Shared Int32 words per run (controlWords) carry the stops and pauses.
 */
import type { SharedDensity } from "../../density/shared-density.ts";
import type { ChainAdaptationResult, DrawInfo, SampleResult } from "../result.ts";
import type { RunState } from "../run-state.ts";
import type { WorkerSettings } from "../methods/method-source.ts";
import type { Reinitialisation } from "../warmup/stuck-watch.ts";

/** The shared memory of a run's stuck-chain exchanges (stuck-exchange.ts): a counter per window, and every chain's evidence per window. */
export interface EvidenceBuffers {
  readonly arrived: Int32Array;
  readonly evidence: Float64Array;
}

/** What a worker is started with. */
export interface WorkerSetup {
  /** URL of the worker module that worker-entry.mjs loads (empty for a bundled worker). */
  readonly entry: string;
}

/**
 * The shared Int32 words of a threaded run: MODE (RUNNING, STOP: stop at a common iteration, ABORT:
 * stop now, PAUSE: stop at a common iteration and hand the chains back), STOP_AT (the common
 * iteration, −1 until decided), then per thread its iterations done when it paused for a stop
 * (POSITION + thread), whether it runs, paused or finished (groupWord), its iterations done
 * so far (progressWord) and its blocks of draws posted but not yet taken by the calling thread
 * (blocksWord: a worker waits while BLOCKS_IN_FLIGHT are, see chain-worker.ts).
 */
export const Control = { MODE: 0, STOP_AT: 1, POSITION: 2 } as const;
/** Values of the MODE word. */
export const Mode = { RUNNING: 0, STOP: 1, ABORT: 2, PAUSE: 3 } as const;
/** Values of a thread's GROUP word. */
export const Group = { RUNNING: 0, PAUSED: 1, FINISHED: 2 } as const;

/** The control words of a run on `threads` threads. */
export function controlWords(threads: number): Int32Array {
  const words = new Int32Array(new SharedArrayBuffer(4 * (2 + 4 * threads)));
  words[Control.STOP_AT] = -1;
  return words;
}

/** Stops every thread of the run now (MODE ABORT), waking those that wait for a common stop. */
export function abortRun(control: Int32Array): void {
  Atomics.store(control, Control.MODE, Mode.ABORT);
  Atomics.compareExchange(control, Control.STOP_AT, -1, 0);
  Atomics.notify(control, Control.STOP_AT);
}

/** Index of thread g's GROUP word. */
export function groupWord(threads: number, g: number): number {
  return Control.POSITION + threads + g;
}

/** Index of thread g's PROGRESS word (its iterations done, updated after each). */
export function progressWord(threads: number, g: number): number {
  return Control.POSITION + 2 * threads + g;
}

/** Index of thread g's BLOCKS word (its blocks of draws posted and not yet taken by the calling thread). */
export function blocksWord(threads: number, g: number): number {
  return Control.POSITION + 3 * threads + g;
}

/**
 * Blocks of draws a worker may have posted that the calling thread has not taken yet. The calling
 * thread writes every draw (onDraw: the CSV files, the spill); a worker that makes draws faster
 * than that would otherwise queue them without bound (memory growing with the run), and the
 * calling thread, taking all queued messages at each turn, would have no time left for its own
 * chains. With this bound a worker waits for the calling thread instead.
 */
export const BLOCKS_IN_FLIGHT = 4;

/** Records of a block of draws of `dim` coordinates: 1024, fewer for a large dim (a block stays within about 1 MiB). */
export function recordsPerBlock(dim: number): number {
  return Math.max(16, Math.min(1024, Math.floor((1 << 17) / (RECORD_HEAD + dim))));
}

/** A group of chains for a worker: chains first … first+count−1 of a run, fresh or continued from a state. */
export interface RunGroup {
  readonly kind: "run";
  readonly densityId: number;
  /** Present when the worker does not hold density `densityId` yet. */
  readonly density?: SharedDensity;
  /** The worker's thread number in the run (its control words). */
  readonly thread: number;
  readonly threads: number;
  readonly first: number;
  /** The options of those chains (chainRangeOptions), the method by name or source (workerSettings). */
  readonly options: WorkerSettings;
  /** Where the chains stand, when they ran elsewhere before (SamplingRun.handOver). */
  readonly state?: RunState;
  readonly control: Int32Array;
  /** Where the run's threads meet at warmup windows' ends to find stuck chains (stuck-exchange.ts). */
  readonly stuck: EvidenceBuffers;
  /** Chains of the whole run. */
  readonly totalChains: number;
  /** Whether the caller wants every iteration's draw (onDraw). */
  readonly draws: boolean;
  /** false: the result's draws and statistics stay empty (OutputOptions.keepDraws). */
  readonly keepDraws: boolean;
  /** The group pauses the run (MODE PAUSE) on reaching this iteration, where every thread then stops. */
  readonly pauseAt?: number;
}

/** From the calling thread. */
export type ToWorker = RunGroup;

/** An error as it crosses threads: the sampler's typed errors keep their class name and chain. */
export interface ThreadError {
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly chain?: number;
}

/** From a worker. */
export type FromWorker =
  | { readonly kind: "ready" }
  | { readonly kind: "draws"; readonly records: Float64Array; readonly count: number }
  | { readonly kind: "adapted"; readonly chain: number; readonly adaptation: ChainAdaptationResult }
  /** A stuck chain re-initialised (chain = row of the whole run). */
  | { readonly kind: "reinitialised"; readonly reinitialisation: Reinitialisation }
  | { readonly kind: "done"; readonly first: number; readonly result: SampleResult }
  | { readonly kind: "paused"; readonly first: number; readonly state: RunState; readonly pace: { readonly seconds: number; readonly gradients: number } }
  | { readonly kind: "error"; readonly error: ThreadError };

/** Fields of a draw record before the position: chain (row of the whole run), iteration, warmup, then DrawInfo's statistics. */
export const RECORD_HEAD = 10;

/** Writes `d` (chain = row of the whole run) as a record at `at`. */
export function writeRecord(buf: Float64Array, at: number, chain: number, d: DrawInfo): void {
  buf[at] = chain;
  buf[at + 1] = d.iteration;
  buf[at + 2] = d.warmup ? 1 : 0;
  buf[at + 3] = d.lp;
  buf[at + 4] = d.acceptStat;
  buf[at + 5] = d.stepSize;
  buf[at + 6] = d.treeDepth;
  buf[at + 7] = d.nLeapfrog;
  buf[at + 8] = d.divergent ? 1 : 0;
  buf[at + 9] = d.energy;
  buf.set(d.position, at + RECORD_HEAD);
}

/** The DrawInfo of the record at `at` (its position a view into buf). */
export function readRecord(buf: Float64Array, at: number, dim: number, firstChain: number): DrawInfo {
  const chain = buf[at]!;
  return {
    chain,
    chainId: firstChain + chain,
    iteration: buf[at + 1]!,
    warmup: buf[at + 2] === 1,
    position: buf.subarray(at + RECORD_HEAD, at + RECORD_HEAD + dim),
    lp: buf[at + 3]!,
    acceptStat: buf[at + 4]!,
    stepSize: buf[at + 5]!,
    treeDepth: buf[at + 6]!,
    nLeapfrog: buf[at + 7]!,
    divergent: buf[at + 8] === 1,
    energy: buf[at + 9]!,
  };
}

/** An error as a message. */
export function toThreadError(e: unknown): ThreadError {
  if (e instanceof Error) {
    const chain = (e as { chain?: unknown }).chain;
    return { name: e.name, message: e.message, ...(e.stack !== undefined ? { stack: e.stack } : {}), ...(typeof chain === "number" ? { chain } : {}) };
  }
  return { name: "Error", message: String(e) };
}

/**
 * What the calling thread and its sampler workers say to each other. A worker starts with nothing;
 * each "run" message gives it a range of chains, with the density whenever it is not the one the
 * worker already holds (the graph as data, the data in shared memory). The worker reports every
 * iteration's draw in batches (one Float64Array of records), each chain's adaptation when its
 * warmup ends, and the range's result when it is done. A shared Int32 flag per run asks every
 * thread to stop between iterations.
 */
import type { SharedDensity } from "../../density/shared-density.ts";
import type { ChainAdaptationResult, DrawInfo, SampleOptions, SampleResult } from "../run.ts";

/** What a worker is started with. */
export interface WorkerSetup {
  /** URL of the worker module that worker-entry.mjs loads (empty for a bundled worker). */
  readonly entry: string;
}

/** A range of chains for a worker: chains first … first+count−1 of a run, as options from chainRangeOptions. */
export interface RunRange {
  readonly kind: "run";
  readonly densityId: number;
  /** Present when the worker does not hold density `densityId` yet. */
  readonly density?: SharedDensity;
  readonly first: number;
  readonly options: SampleOptions;
  /** Set to 1 to stop after the current iteration. */
  readonly stop: Int32Array;
  /** Whether the caller wants every iteration's draw (onDraw). */
  readonly draws: boolean;
}

/** From the calling thread. */
export type ToWorker = RunRange;

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
  | { readonly kind: "done"; readonly first: number; readonly result: SampleResult }
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

/**
 * Where the threads of a run meet at a warmup window's end to decide which chains are stuck
 * (warmup/stuck-watch.ts): each thread writes its chains' evidence into shared memory, counts them
 * in, and waits until every chain of the run is in; then each reads all of them and makes the same
 * decision. Every window has its own slots and counter, so nothing is reset between windows. A
 * thread that waits while the run is stopping (MODE not RUNNING: the others may stop before the
 * window's end) leaves without a decision: a stopped run has no iteration after the window in
 * which a re-initialisation would show.
 */
import { defaultWindows, windowEnds } from "../warmup/windows.ts";
import type { ChainCheck, EvidenceExchange } from "../warmup/stuck-watch.ts";
import { Control, Mode, type EvidenceBuffers } from "./protocol.ts";

// Numbers per chain and window: step size, iterations, share at the maximum depth, movement, re-initialisations.
const FIELDS = 5;
// How long a waiting thread sleeps between looks at the run's mode, in milliseconds.
const LOOK_MS = 20;

/** The buffers for a run of `chains` chains and `warmup` warmup iterations. */
export function evidenceBuffers(chains: number, warmup: number): EvidenceBuffers {
  const windows = Math.max(1, windowEnds(warmup, defaultWindows).length);
  return {
    arrived: new Int32Array(new SharedArrayBuffer(4 * windows)),
    evidence: new Float64Array(new SharedArrayBuffer(8 * windows * chains * FIELDS)),
  };
}

export type { EvidenceBuffers };

/**
 * Whether some thread waits at a window's end for chains of others (some but not all of a run's
 * `chains` are in): a worker must not then wait for the calling thread to take its draws, as the
 * calling thread may be the one waiting, for this worker's chains.
 */
export function waitingAtExchange(buffers: EvidenceBuffers, chains: number): boolean {
  for (let k = 0; k < buffers.arrived.length; k++) {
    const n = Atomics.load(buffers.arrived, k);
    if (n > 0 && n < chains) return true;
  }
  return false;
}

/** One thread's side of the exchange: its group of chains, rows `first` … of the whole run. */
export class SharedEvidenceExchange implements EvidenceExchange {
  readonly firstChain: number;
  private readonly buffers: EvidenceBuffers;
  private readonly first: number;
  private readonly chains: number;
  private readonly control: Int32Array;
  private readonly ends: readonly number[];

  /** `firstChain`: the whole run's first chain id; `chains`: the whole run's chains. */
  constructor(buffers: EvidenceBuffers, firstChain: number, first: number, chains: number, warmup: number, control: Int32Array) {
    this.buffers = buffers;
    this.firstChain = firstChain;
    this.first = first;
    this.chains = chains;
    this.control = control;
    this.ends = windowEnds(warmup, defaultWindows);
  }

  share(iteration: number, own: readonly ChainCheck[]): readonly ChainCheck[] | null {
    const k = this.ends.indexOf(iteration);
    if (k < 0) return null;
    const { arrived, evidence } = this.buffers;
    const base = k * this.chains * FIELDS;
    own.forEach((o, i) => {
      const at = base + (this.first + i) * FIELDS;
      const e = o.evidence;
      evidence.set([e.stepSize, e.iterations, e.maxDepthShare, e.movement, o.reinitialised], at);
    });
    // Atomics order the writes above before the count, for every thread that reads the count.
    Atomics.add(arrived, k, own.length);
    Atomics.notify(arrived, k);
    for (;;) {
      const n = Atomics.load(arrived, k);
      if (n >= this.chains) break;
      if (Atomics.load(this.control, Control.MODE) !== Mode.RUNNING) return null;
      Atomics.wait(arrived, k, n, LOOK_MS);
    }
    const all: ChainCheck[] = [];
    for (let c = 0; c < this.chains; c++) {
      const at = base + c * FIELDS;
      all.push({
        evidence: { stepSize: evidence[at]!, iterations: evidence[at + 1]!, maxDepthShare: evidence[at + 2]!, movement: evidence[at + 3]! },
        reinitialised: evidence[at + 4]!,
      });
    }
    return all;
  }
}

/**
 * The driver's side of stuck-chain detection (stuck-chains.ts): each chain's evidence over the
 * current warmup window, how often each chain was re-initialised, and what was done, as state that
 * moves with the chains between threads (ChainState.stuck). At a window's end the evidence of
 * every chain of the run must meet in one place: a run that holds only some of the chains (a
 * worker thread's group) shares its own through an EvidenceExchange and gets everyone's back, so
 * that the decision, and with it every chain's draws, does not depend on how the chains are spread
 * over threads.
 */
import {
  chainsToReinitialise, findStuckChains, WindowEvidence, type ChainWindowEvidence, type StuckChain,
} from "./stuck-chains.ts";

/** One chain's part in a window's decision: its evidence and its re-initialisations so far. */
export interface ChainCheck {
  readonly evidence: ChainWindowEvidence;
  readonly reinitialised: number;
}

/**
 * Where the chains of a run that is split over threads meet at a window's end: `share` takes this
 * run's own chains' checks (rows first … of the whole run) and returns every chain's, in run order,
 * or null when the run is stopping and the others may never arrive (then no chain is re-initialised).
 */
export interface EvidenceExchange {
  /** The chain id of the whole run's first chain (its row 0). */
  readonly firstChain: number;
  share(iteration: number, own: readonly ChainCheck[]): readonly ChainCheck[] | null;
}

/** A re-initialisation of a stuck chain, as the run's result and its notes report it. */
export interface Reinitialisation {
  /** Row of the chain in the run (0-based). */
  readonly chain: number;
  /** Chain id in the random streams. */
  readonly chainId: number;
  /** The warmup iteration (0-based) after which the chain was re-initialised. */
  readonly iteration: number;
  /** What was seen (the chain's row in `stuck` is the whole run's). */
  readonly stuck: StuckChain;
}

/** One chain's detection state between iterations, to move it with the chain. */
export interface StuckWatchState {
  readonly low: Float64Array;
  readonly high: Float64Array;
  readonly count: number;
  readonly atMax: number;
  readonly reinitialised: number;
  readonly history: readonly Reinitialisation[];
}

/** Every chain's window evidence and re-initialisations of one run (or one thread's group of it). */
export class StuckWatch {
  private readonly windows: WindowEvidence[];
  private readonly counts: number[];
  private readonly history: Reinitialisation[][];
  private exchange: EvidenceExchange | null = null;

  constructor(chains: number, dim: number) {
    this.windows = Array.from({ length: chains }, () => new WindowEvidence(dim));
    this.counts = new Array<number>(chains).fill(0);
    this.history = Array.from({ length: chains }, () => []);
  }

  /** Shares the evidence with the other threads' chains of the run (threads/stuck-exchange.ts). */
  shareThrough(exchange: EvidenceExchange): void {
    this.exchange = exchange;
  }

  /** Adds chain c's warmup iteration: its position after it and its tree depth. */
  add(c: number, q: ArrayLike<number>, treeDepth: number, maxDepth: number): void {
    this.windows[c]!.add(q, treeDepth, maxDepth);
  }

  /**
   * At the end of the window closed by warmup iteration t (0-based) of `warmup`, with each chain's
   * step size then: the chains of this run (rows) to re-initialise, with what was seen, counted as
   * re-initialised. Every chain's evidence starts afresh.
   */
  check(t: number, warmup: number, stepSizes: ArrayLike<number>, firstChain: number): { row: number; stuck: StuckChain }[] {
    const own: ChainCheck[] = this.windows.map((w, c) => ({ evidence: w.evidence(stepSizes[c]!), reinitialised: this.counts[c]! }));
    for (const w of this.windows) w.reset();
    const all = this.exchange ? this.exchange.share(t, own) : own;
    if (all === null) return [];
    // This run's chains among all: the exchange's rows are the whole run's, firstChain on.
    const offset = this.exchange ? firstChain - this.exchange.firstChain : 0;
    const chosen = chainsToReinitialise(findStuckChains(all.map((a) => a.evidence)), t, warmup, all.map((a) => a.reinitialised));
    const mine: { row: number; stuck: StuckChain }[] = [];
    for (const s of chosen) {
      const row = s.chain - offset;
      if (row < 0 || row >= this.windows.length) continue;
      this.counts[row]!++;
      this.history[row]!.push({ chain: row, chainId: firstChain + row, iteration: t, stuck: s });
      mine.push({ row, stuck: s });
    }
    return mine;
  }

  /** The re-initialisations so far, rows of this run. */
  reinitialisations(): Reinitialisation[] {
    return this.history.flat().sort((a, b) => a.iteration - b.iteration || a.chain - b.chain);
  }

  /** Chain c's state, to continue it elsewhere. */
  state(c: number): StuckWatchState {
    return { ...this.windows[c]!.state(), reinitialised: this.counts[c]!, history: this.history[c]!.map((r) => ({ ...r })) };
  }

  /** Continues chain c from a state that state() gave; `row` renumbers its history to this run's rows. */
  restore(c: number, s: StuckWatchState): void {
    this.windows[c]!.restore(s);
    this.counts[c] = s.reinitialised;
    this.history[c] = s.history.map((r) => ({ ...r, chain: c }));
  }
}

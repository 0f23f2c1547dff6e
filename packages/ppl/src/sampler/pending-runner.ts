/**
 * A run that starts on the CPU while its transition runner (a GPU kernel) is still being prepared,
 * and moves to the runner once it is ready and measures faster: the pieces that decide (the
 * runner's blocks, its trial's cost a gradient, when its preparation starts). The driver that
 * applies them is drivers/pending.ts, whose comment tells the whole story.
 */
import type { PendingRunner, ReadyRunner } from "./options.ts";

/** Iterations of a block-wise runner's block starting at t (as a GPU runner splits a run): warmup blocks end where the host acts. */
export function runnerBlock(t: number, warmup: number, total: number, hostSteps: readonly number[], block: number): number {
  if (t < warmup) {
    const next = hostSteps.find((h) => h >= t) ?? warmup - 1;
    return Math.min(block, next + 1 - t);
  }
  return Math.min(block, total - t);
}

/** The iteration after warmup's first metric update (the first of the host's steps before its last), or 0 without one. */
export function firstMetricUpdate(hostSteps: readonly number[], warmup: number): number {
  const updates = hostSteps.filter((h) => h < warmup - 1);
  return updates.length > 0 ? Math.min(...updates) + 1 : 0;
}

// The runner's trial's blocks: 1, 4, 16 then 64 iterations at most, until one takes
// trialBlockSeconds. A slow device's first block of a hundred early-warmup iterations (trees of a
// thousand leapfrogs) took lavapipe 13 s, where the CPU ran the whole posterior in 2; a fast one
// needs a longer block for its fixed cost a block (a submission, a read back) to stop counting.
export const TRIAL_BLOCKS = [1, 4, 16, 64] as const;

/** One block of a runner's trial: its seconds, and the gradients and iterations it ran (all chains). */
export interface TrialBlock {
  readonly seconds: number;
  readonly gradients: number;
  readonly iterations: number;
}

/**
 * Seconds per gradient of one chain that a run in blocks of `runBlock` iterations would take, from
 * a trial's blocks (the first, which pays the kernel's first dispatch, left out by the caller). A
 * block costs a fixed time (its upload, submission and read back: milliseconds) plus its
 * gradients' time, so the last two blocks give both, and the run's longer blocks share the fixed
 * time over more gradients: on the H200 a 16-iteration block of low_dim_gauss_mix took 52 µs a
 * gradient, the whole run 9. With one block, or blocks that do not tell the two apart, the last
 * block's mean.
 */
export function runSecondsPerGradient(blocks: readonly TrialBlock[], runBlock: number): number {
  const last = blocks[blocks.length - 1];
  if (!last || !(last.gradients > 0)) return Infinity;
  const mean = last.seconds / last.gradients;
  const prev = blocks[blocks.length - 2];
  if (!prev || !(prev.gradients > 0) || last.gradients < 1.5 * prev.gradients || !(last.seconds > prev.seconds)) return mean;
  const perGradient = (last.seconds - prev.seconds) / (last.gradients - prev.gradients);
  const fixed = Math.max(0, prev.seconds - perGradient * prev.gradients);
  const runGradients = (last.gradients / last.iterations) * Math.max(runBlock, last.iterations);
  return Math.min(mean, perGradient + fixed / runGradients);
}

/** The runner's preparation, started at once or (a function `ready`) once the run is long enough. */
export interface LazyStart {
  readonly started: boolean;
  /** Starts the preparation if the CPU's projected seconds left pass the threshold (NaN: not known yet). */
  consider(secondsLeft: number): void;
  /** Whether a run with this many of the CPU's seconds left is worth a trial and a move (more than the threshold; NaN, not known yet: no). */
  worthIt(secondsLeft: number): boolean;
}

/** Starts the runner's preparation at once (a promise) or once the run is long enough (a function); reports its outcome. */
export function lazyStart(pending: PendingRunner, onReady: (r: ReadyRunner) => void, onFailure: (message: string) => void): LazyStart {
  let started = false;
  const go = (): void => {
    started = true;
    let promise: Promise<ReadyRunner>;
    try {
      promise = typeof pending.ready === "function" ? pending.ready() : pending.ready;
    } catch (e) {
      promise = Promise.reject(e);
    }
    promise.then(onReady, (e: unknown) => onFailure(e instanceof Error ? e.message : String(e)));
  };
  if (typeof pending.ready !== "function") go();
  const threshold = pending.startAfterSeconds ?? 0.5;
  return {
    get started() {
      return started;
    },
    consider(secondsLeft) {
      if (!started && (threshold <= 0 || secondsLeft > threshold)) go();
    },
    worthIt(secondsLeft) {
      return threshold <= 0 || secondsLeft > threshold;
    },
  };
}

import type { RenderLimits } from "../limits.ts";
import { MIN_PER_THREAD } from "../strategy.ts";

// How a reduction runs, beside its renderers: one thread per output (serial.ts), or a workgroup
// per output slice with a fixed-order tree merge, in one pass or two (parallel.ts, workgroup.ts).

/**
 * Terms each thread of a split reduction takes at least. A second workgroup per output costs its
 * last one an atomic count and a read of the partials from L2: on an H200 the hierarchical
 * gradient's three sums over 2000 group effects took 5.2 µs as two workgroups each (4 terms a
 * thread) and 3.5 µs as one (8), while its sums over 100k rows were alike at 98 and 49 workgroups.
 */
const TERMS_PER_THREAD = 2 * MIN_PER_THREAD;

/** Threads per busy workgroup that outputs alone must supply before one thread per output pays. */
const OUTPUT_THREADS_PER_GROUP = 32;

/**
 * Workgroups per output of a reduction of `count` elements into each of `outputs` values, or 0
 * to keep one thread per output: the serial loop wins when the reduced extent is short, or when
 * the outputs alone already give the device enough threads. A thousand outputs of a thousand
 * terms each (1024 chains' log-likelihoods) are neither: one thread each would leave the GPU
 * nearly idle while every thread walks its thousand terms, so each output gets a workgroup.
 */
export function reducePartitions(outputs: number, count: number, limits: RenderLimits): number {
  const loopBudget = limits.maxLoopIterations / 2; // the other half: tree merges, pass 2
  const fitsOneThread = count <= loopBudget;
  if (fitsOneThread && count < limits.parallelReduceMin) return 0;
  if (fitsOneThread && outputs >= limits.busyGroups * OUTPUT_THREADS_PER_GROUP) return 0;
  const wanted = Math.ceil(limits.busyGroups / outputs);
  const useful = Math.ceil(count / (limits.groupSize * TERMS_PER_THREAD));
  const needed = Math.ceil(count / (limits.groupSize * loopBudget));
  return Math.max(1, needed, Math.min(wanted, useful));
}


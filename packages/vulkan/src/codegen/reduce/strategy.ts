import type { RenderLimits } from "../limits.ts";

// How a reduction runs, beside its renderers: one thread per output (serial.ts), or a workgroup
// per output slice with a fixed-order tree merge, in one pass or two (parallel.ts, workgroup.ts).

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
  const useful = Math.ceil(count / (limits.groupSize * limits.reduceTermsPerThread));
  const needed = Math.ceil(count / (limits.groupSize * loopBudget));
  return Math.max(1, needed, Math.min(wanted, useful));
}


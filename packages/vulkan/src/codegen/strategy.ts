import type { RenderLimits } from "./limits.ts";

// The cost rules that choose between one thread per output and the cooperative kernels, in one
// place. Both aim at the same thing: about limits.busyGroups workgroups of real work, each thread
// looping over enough elements that the extra pass and the tree merge cost little.

/** Fewest elements one thread of a parallel kernel should fold before a split is worth it. */
const MIN_PER_THREAD = 4;

/**
 * Workgroups per output of a reduction of `count` elements into each of `outputs` values, or 0
 * to keep one thread per output: the serial loop wins when the reduced extent is short, or when
 * the outputs alone already give every thread of the device work.
 */
export function reducePartitions(outputs: number, count: number, limits: RenderLimits): number {
  const loopBudget = limits.maxLoopIterations / 2; // the other half: tree merges, pass 2
  const fitsOneThread = count <= loopBudget;
  if (fitsOneThread && count < limits.parallelReduceMin) return 0;
  if (fitsOneThread && outputs >= limits.busyGroups * limits.groupSize) return 0;
  const wanted = Math.ceil(limits.busyGroups / outputs);
  const useful = Math.ceil(count / (limits.groupSize * MIN_PER_THREAD));
  const needed = Math.ceil(count / (limits.groupSize * loopBudget));
  return Math.max(1, needed, Math.min(wanted, useful));
}

/** Whether a matmul of `work` multiply-adds runs as the tiled shared-memory kernel. */
export function useTiledMatmul(work: number, k: number, limits: RenderLimits): boolean {
  return work >= limits.tiledMatmulMin || k > limits.maxLoopIterations / 2;
}

/**
 * Slices of the inner dimension k a tiled matmul splits into (partial products merged by a second
 * pass), so that a product with few output tiles and a long k (Xᵀ·R over N rows) still fills the device.
 */
export function matmulSplits(tiles: number, k: number, tileK: number, loopsPerStep: number, limits: RenderLimits): number {
  const wanted = Math.ceil(limits.busyGroups / tiles);
  const useful = Math.ceil(k / (tileK * MIN_PER_THREAD));
  const needed = Math.ceil(((k / tileK) * loopsPerStep) / (limits.maxLoopIterations / 2));
  return Math.max(1, needed, Math.min(wanted, useful));
}

/**
 * Units per thread of an elementwise kernel of `units` outputs: limits.unitsPerThread once that
 * still gives busyGroups workgroups of streamLocalSize threads, else 1 (a smaller kernel needs
 * every thread it can get more than each thread needs several loads in flight).
 */
export function streamUnitsPerThread(units: number, limits: RenderLimits): number {
  const per = limits.unitsPerThread;
  return per > 1 && units >= limits.busyGroups * limits.streamLocalSize * per ? per : 1;
}

import type { RenderLimits } from "./limits.ts";

// The cost rules that choose between one thread per output and the cooperative kernels, in one
// place. Both aim at the same thing: about limits.busyGroups workgroups of real work, each thread
// looping over enough elements that the extra pass and the tree merge cost little.

/** Fewest elements one thread of a parallel kernel should fold before a split is worth it. */
export const MIN_PER_THREAD = 4;

/**
 * Fewest terms of k one thread of a split skinny matmul should loop over: every workgroup also
 * merges its slots in shared memory and writes n·m partial sums that are read back to be merged.
 */
const MIN_TERMS_PER_THREAD = 32;

/** The kernels a matmul can run as: one thread per output, tiled shared-memory, or skinny. */
export type MatmulKernel = "units" | "tiled" | "skinny";

/**
 * The kernel of a matmul [.., n, k]·[.., k, m] with `outputs` elements. Small products stay one
 * thread per output (unless k alone is too long for one thread's loop budget). Larger ones with
 * few columns (m ≤ skinnyMatmulColumns) and a long other dimension run as the skinny kernels:
 * either rows enough for a workgroup of output rows (X[N,D]·B[D,C]) or a k long enough that every
 * slot of the workgroup loops over MIN_TERMS_PER_THREAD terms (Xᵀ[D,N]·R[N,C]). The rest (wide
 * outputs, short batched products whose skinny workgroups would mostly idle) run tiled.
 */
export function matmulKernel(n: number, m: number, k: number, outputs: number, limits: RenderLimits): MatmulKernel {
  const cooperative = outputs * k >= limits.tiledMatmulMin || k > limits.maxLoopIterations / 2;
  if (!cooperative) return "units";
  if (m > limits.skinnyMatmulColumns) return "tiled";
  const slots = skinnySlots(n, limits.groupSize);
  return slots === 1 || k >= slots * MIN_TERMS_PER_THREAD ? "skinny" : "tiled";
}

/**
 * Threads per output row of a skinny matmul: a workgroup holds min(n, groupSize) rows, repeated
 * as often as it fits (its slots, each looping over every slots-th term of k).
 */
export function skinnySlots(n: number, groupSize: number): number {
  return Math.max(1, Math.floor(groupSize / Math.min(Math.max(1, n), groupSize)));
}

/**
 * Slices of k a skinny matmul splits into (their partial products are summed in slice
 * order), given `tiles` workgroups per slice, `slots` threads per output row and `loopsPerTerm`
 * loop iterations one thread runs per term of k. Splits fill the device only while the tiles
 * alone fill less than half of busyGroups: the merge sums each output's partials serially in
 * one thread, so beyond that it costs more than the split gains (on an H200, with busyGroups 1024,
 * Xᵀ·R over 100k rows took 35 µs at 528 slices, 49 µs at 1056); lavapipe's loop budget may need more.
 */
export function skinnySplits(tiles: number, k: number, slots: number, loopsPerTerm: number, limits: RenderLimits): number {
  const wanted = Math.max(1, Math.floor(limits.busyGroups / 2 / tiles));
  const useful = Math.ceil(k / (slots * MIN_TERMS_PER_THREAD));
  const needed = Math.ceil((k * loopsPerTerm) / (limits.maxLoopIterations / 2));
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

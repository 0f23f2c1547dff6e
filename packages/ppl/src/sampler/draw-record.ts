/**
 * The mutable record behind a DrawInfo. A run keeps one per chain and refills it for every onDraw
 * call, so the per-draw hand-off allocates nothing; a DrawInfo is therefore valid only during the
 * call (copy what is kept), as its position view always was.
 */
import type { DrawInfo } from "./result.ts";

/** A DrawInfo whose fields a run writes in place. */
export type DrawRecord = { -readonly [K in keyof DrawInfo]: DrawInfo[K] };

/** A chain's record, its position a view of (or a buffer for) the chain's current point. */
export function drawRecord(chain: number, chainId: number, position: Float64Array): DrawRecord {
  return {
    chain,
    chainId,
    iteration: 0,
    warmup: true,
    position,
    lp: 0,
    acceptStat: 0,
    stepSize: 0,
    treeDepth: 0,
    nLeapfrog: 0,
    divergent: false,
    energy: 0,
  };
}

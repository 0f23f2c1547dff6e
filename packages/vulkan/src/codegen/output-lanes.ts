import { glslType } from "./glsl.ts";
import type { DType } from "@ppl/tensor";

// Several threads an output element: a long serial sum per output (a merge pass over many
// k-slices, a scatter's long segments) is a chain of loads few threads run; S threads ("lanes")
// each sum every S-th item in order, then a fixed tree in shared memory adds the S sums, so the
// result is the same on every run. Used by slice-sum.ts and scatter-lanes.ts.

/** Lanes an output: a power of two up to 32 (and a workgroup) giving each lane at least `minEach` of the output's `items` (on average), or 1. */
export function outputLanes(items: number, minEach: number, groupSize: number): number {
  let S = 1;
  while (S < 32 && S * 2 <= groupSize && items >= S * 2 * minEach) S *= 2;
  return S;
}

/**
 * The statements after each thread has its lane's sum in `acc`: the S lanes' sums added in a
 * fixed tree in shared memory (lane j's partner at offset w·`laneStride`), then lane 0 runs
 * `store(sum)` for its output where `inRange` holds. Every thread of the workgroup runs them.
 */
export function laneTree(S: number, laneStride: number, inRange: string, store: (sum: string) => string): string[] {
  return [
    "ppl_lanes[t] = acc;",
    "memoryBarrierShared(); barrier();",
    `for (int w = ${S / 2}; w > 0; w >>= 1) { if (j < w) ppl_lanes[t] += ppl_lanes[t + w${laneStride === 1 ? "" : ` * ${laneStride}`}]; memoryBarrierShared(); barrier(); }`,
    `if (j == 0 && ${inRange}) { ${store("ppl_lanes[t]")} }`,
  ];
}

/** The shared array laneTree adds in. */
export function laneTreeShared(dtype: DType, threads: number): string {
  return `shared ${glslType(dtype)} ppl_lanes[${threads}];`;
}

import { CONTROLLER_INTS, INT_SLOT } from "./nuts-layout.ts";

/** Where one chain is in its block, as the controller's int state holds it. */
export interface ChainProgress {
  /** 0 begin a transition, 1 waiting for a leaf's gradient, 2 done with the block. */
  readonly phase: number;
  /** Transitions finished in this block. */
  readonly k: number;
  readonly depth: number;
  readonly leaf: number;
}

/** Read the progress of every chain from the controller's int state. */
export function chainProgress(ints: Int32Array, chains: number): ChainProgress[] {
  return Array.from({ length: chains }, (_, c) => {
    const o = c * CONTROLLER_INTS.length;
    return { phase: ints[o + INT_SLOT.phase]!, k: ints[o + INT_SLOT.k]!, depth: ints[o + INT_SLOT.depth]!, leaf: ints[o + INT_SLOT.leaf]! };
  });
}

/**
 * Controller + gradient pairs for the next submission of a block of `count` transitions: what the
 * chain furthest from done still needs, from the leaves left in its current subtree and the last
 * block's pace (`perIteration` leapfrogs per transition of its slowest chain), plus one call to
 * finish. Every step past the slowest chain's end is a wasted gradient of all chains, and every
 * extra submission a host round trip, so the count is an estimate rather than a bound, rounded up
 * to an eighth of its power of two so that it runs as at most four sequences (powerOfTwoParts).
 */
export function stepsToSubmit(progress: readonly ChainProgress[], count: number, perIteration: number, max: number): number {
  let need = 0;
  for (const p of progress) {
    if (p.phase === 2) continue;
    const inSubtree = p.phase === 1 ? 2 ** p.depth - p.leaf : 0;
    const whole = p.phase === 1 ? count - p.k - 1 : count - p.k;
    need = Math.max(need, inSubtree + Math.ceil(whole * perIteration) + 1);
  }
  return Math.min(max, quantize(Math.max(1, need)));
}

function quantize(n: number): number {
  if (n <= 16) return n;
  const grain = 2 ** (Math.floor(Math.log2(n)) - 3);
  return Math.ceil(n / grain) * grain;
}

/**
 * The powers of two that sum to `steps`, largest first, none above `largest` (a power of two; a
 * longer run repeats it). A submission runs as these sequences one after the other (the same
 * dispatches in the same order), so a run records at most log2(largest) + 1 sequences, each once:
 * recording one of a thousand steps takes the host milliseconds (an H200's hier run spent 0.6 s
 * recording about 40 sequences of distinct lengths).
 */
export function powerOfTwoParts(steps: number, largest = Infinity): number[] {
  const parts: number[] = [];
  let rest = steps;
  for (; rest > largest; rest -= largest) parts.push(largest);
  for (let bit = 2 ** Math.floor(Math.log2(Math.max(1, rest))); bit >= 1; bit /= 2) if (rest & bit) parts.push(bit);
  return parts;
}

import { finish, inRanges } from "./steps.ts";

/**
 * The positions of `values` in ascending order (a stable sort), for values without NaN: an LSD
 * radix sort of the doubles' bit patterns mapped to unsigned keys that order as the numbers do
 * (-0 just before +0). It runs in linear time: sorting the positions with a comparator
 * (`averageRanks`) took about three times as long as ranking through this order now does, and a
 * summary ranked every parameter's draws three times.
 */
export function sortOrder(values: Float64Array, scratch?: SortScratch): Uint32Array {
  return finish(sortOrderSteps(values, scratch));
}

/** `sortOrder` in steps: the generator yields after about STEP_WORK keys made, counted or moved (a split chain of 2,500,000 draws took a second and more in one call). */
export function* sortOrderSteps(values: Float64Array, scratch?: SortScratch): Generator<void, Uint32Array, void> {
  const n = values.length;
  const bits = new Uint32Array(values.buffer, values.byteOffset, 2 * n);
  // Three arrays of n, from the caller's scratch when it sorts many series (a summary's split chains).
  const take = (k: number): Uint32Array => (scratch !== undefined && scratch.arrays[k]!.length >= n ? scratch.arrays[k]!.subarray(0, n) : new Uint32Array(n));
  // One word of each key at a time (the low words for the first three passes, then the high
  // words): an array of n fewer than both at once, 10 MB for a split chain of 2,500,000 draws.
  const keys = take(0);
  let order = take(1);
  let next = take(2);
  yield* inRanges(n, (from, to) => {
    for (let i = from; i < to; i++) order[i] = i;
  });
  const counts = new Uint32Array(RADIX);
  let made = -1;
  // Six passes of 11, 11 and 10 bits over each word, least significant first.
  for (const [word, shift] of PASSES) {
    if (made !== word) {
      yield* inRanges(n, (from, to) => makeKeys(bits, keys, word, from, to));
      made = word;
    }
    counts.fill(0);
    yield* inRanges(n, (from, to) => {
      for (let i = from; i < to; i++) counts[(keys[i]! >>> shift) & MASK]!++;
    });
    // A digit that all keys share leaves the order as it is.
    if (counts[(keys[0]! >>> shift) & MASK] === n) continue;
    let sum = 0;
    for (let d = 0; d < RADIX; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    const [from, into] = [order, next];
    yield* inRanges(n, (start, end) => scatter(from, into, keys, counts, shift, start, end));
    order = into;
    next = from;
  }
  return order;
}

// Word `word` (0 the low, 1 the high) of the keys of values from..to-1: their bits (little-endian
// doubles: the low word first, as on every platform Node runs on), a negative's all flipped (they
// order backwards by their bits), a positive's sign bit set.
function makeKeys(bits: Uint32Array, keys: Uint32Array, word: 0 | 1, from: number, to: number): void {
  for (let i = from; i < to; i++) {
    const h = bits[2 * i + 1]!;
    const w = bits[2 * i + word]!;
    if (h & 0x80000000) keys[i] = ~w >>> 0;
    else keys[i] = word === 1 ? (w | 0x80000000) >>> 0 : w;
  }
}

// One pass's moves of order[start..end-1] into their digits' next places (counts: each digit's next place, advanced).
function scatter(order: Uint32Array, next: Uint32Array, keys: Uint32Array, counts: Uint32Array, shift: number, start: number, end: number): void {
  for (let k = start; k < end; k++) {
    const i = order[k]!;
    next[counts[(keys[i]! >>> shift) & MASK]!++] = i;
  }
}

const RADIX = 2048;
const MASK = RADIX - 1;
const PASSES: ReadonlyArray<readonly [0 | 1, number]> = [
  [0, 0],
  [0, 11],
  [0, 22],
  [1, 0],
  [1, 11],
  [1, 22],
];

/** Three arrays that `sortOrder` sorts in instead of allocating its own, for series of up to `capacity` values; the order it returns lies in one of them, valid until the next sort. */
export class SortScratch {
  readonly arrays: readonly Uint32Array[];
  constructor(capacity: number) {
    this.arrays = Array.from({ length: 3 }, () => new Uint32Array(capacity));
  }
}

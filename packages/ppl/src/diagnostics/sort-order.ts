/**
 * The positions of `values` in ascending order (a stable sort), for values without NaN: an LSD
 * radix sort of the doubles' bit patterns mapped to unsigned keys that order as the numbers do
 * (-0 just before +0). It runs in linear time: sorting the positions with a comparator
 * (`averageRanks`) took about three times as long as ranking through this order now does, and a
 * summary ranked every parameter's draws three times.
 */
export function sortOrder(values: Float64Array, scratch?: SortScratch): Uint32Array {
  const n = values.length;
  const bits = new Uint32Array(values.buffer, values.byteOffset, 2 * n);
  // Four arrays of n, from the caller's scratch when it sorts many series (a summary's split chains).
  const take = (k: number): Uint32Array => (scratch !== undefined && scratch.arrays[k]!.length >= n ? scratch.arrays[k]!.subarray(0, n) : new Uint32Array(n));
  const lo = take(0);
  const hi = take(1);
  // Little-endian doubles (every platform Node runs on): the low word first.
  for (let i = 0; i < n; i++) {
    const h = bits[2 * i + 1]!;
    const l = bits[2 * i]!;
    // Negative numbers order backwards by their bits, so all their bits flip; positive ones get the sign bit set.
    if (h & 0x80000000) {
      hi[i] = ~h >>> 0;
      lo[i] = ~l >>> 0;
    } else {
      hi[i] = (h | 0x80000000) >>> 0;
      lo[i] = l;
    }
  }
  let order = take(2);
  let next = take(3);
  for (let i = 0; i < n; i++) order[i] = i;
  const counts = new Uint32Array(RADIX);
  // Six passes of 11, 11 and 10 bits over each word, least significant first.
  for (const [word, shift] of PASSES) {
    const keys = word === 0 ? lo : hi;
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[(keys[i]! >>> shift) & MASK]!++;
    // A digit that all keys share leaves the order as it is.
    if (counts[(keys[0]! >>> shift) & MASK] === n) continue;
    let sum = 0;
    for (let d = 0; d < RADIX; d++) {
      const c = counts[d]!;
      counts[d] = sum;
      sum += c;
    }
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      next[counts[(keys[i]! >>> shift) & MASK]!++] = i;
    }
    const t = order;
    order = next;
    next = t;
  }
  return order;
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

/** Four arrays that `sortOrder` sorts in instead of allocating its own, for series of up to `capacity` values; the order it returns lies in one of them, valid until the next sort. */
export class SortScratch {
  readonly arrays: readonly Uint32Array[];
  constructor(capacity: number) {
    this.arrays = Array.from({ length: 4 }, () => new Uint32Array(capacity));
  }
}

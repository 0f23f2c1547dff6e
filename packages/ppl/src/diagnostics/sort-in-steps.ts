/**
 * Float64Array.prototype.sort's order (ascending, -0 before +0, NaN last), made in place in steps
 * that a caller can stop between: the summary of a parameter of 4 × 5,000,000 draws sorts them
 * all, one call of several seconds that no signal can interrupt, where a stop must end the command
 * within two. An in-place most-significant-digit radix sort (American flag sort) on the doubles'
 * bits, a byte a digit, moves each double (as two 32-bit words) into the bucket of its leading
 * byte; a bucket still large is sorted the same way on its next byte, a small one by the built-in
 * sort. The generator yields after about STEP_WORK elements counted or moved. Equal keys are
 * equal doubles (NaN aside, which all take the largest key), so the result is the built-in sort's,
 * value for value.
 */
import { STEP_WORK } from "./steps.ts";

/** Buckets at most this long are sorted by the built-in sort. */
const SMALL_BUCKET = 1 << 12;
const DIGITS = 256;
/** Bytes of a key: the last level's buckets hold equal keys. */
const LEVELS = 8;
// Which 32-bit word of a double holds its sign, exponent and top mantissa bits: the second on a little-endian machine.
const HI = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 1 : 0;
const LO = 1 - HI;

/** Sorts `a` in place as `a.sort()` does, yielding between steps; returns `a`. `smallBucket`: the longest bucket left to the built-in sort (small in tests, to reach every digit). */
export function* sortInSteps(a: Float64Array, smallBucket = SMALL_BUCKET): Generator<void, Float64Array, void> {
  if (a.length <= smallBucket) return a.sort();
  const s: Scratch = { words: new Uint32Array(a.buffer, a.byteOffset, 2 * a.length), counts: new Float64Array(DIGITS), next: new Float64Array(DIGITS), ends: new Float64Array(DIGITS), done: 0 };
  // Buckets left to sort on a digit: start, end, level.
  const stack: number[] = [0, a.length, 0];
  while (stack.length > 0) {
    const level = stack.pop()!;
    const end = stack.pop()!;
    const start = stack.pop()!;
    yield* distribute(s, start, end, level);
    let at = start;
    for (let d = 0; d < DIGITS; d++) {
      const n = s.counts[d]!;
      // At the last level a bucket's keys are equal: nothing left to order.
      if (n > smallBucket && level + 1 < LEVELS) stack.push(at, at + n, level + 1);
      else if (n > 1 && level + 1 < LEVELS) {
        a.subarray(at, at + n).sort();
        s.done += n;
      }
      at += n;
    }
    if (s.done >= STEP_WORK) {
      s.done = 0;
      yield;
    }
  }
  return a;
}

// The sort's buffers, made once: the doubles' words, digit counts, each bucket's next place and end, and the work since the last yield.
interface Scratch {
  readonly words: Uint32Array;
  readonly counts: Float64Array;
  readonly next: Float64Array;
  readonly ends: Float64Array;
  done: number;
}

// Counts the digits at `level` of elements start .. end-1 and moves each into its digit's bucket, in place (a bucket of all of them stays as it is).
function* distribute(s: Scratch, start: number, end: number, level: number): Generator<void, void, void> {
  const { words: u, counts, next, ends } = s;
  counts.fill(0);
  for (let i = start; i < end; i++) {
    counts[digit(u[2 * i + HI]!, u[2 * i + LO]!, level)]!++;
    if (++s.done >= STEP_WORK) {
      s.done = 0;
      yield;
    }
  }
  let at = start;
  for (let d = 0; d < DIGITS; d++) {
    next[d] = at;
    at += counts[d]!;
    ends[d] = at;
    if (counts[d] === end - start) return;
  }
  for (let b = 0; b < DIGITS; b++) {
    while (next[b]! < ends[b]!) {
      // The element out of place is carried to its bucket, and the one there taken on, until one belongs here.
      const i = next[b]!;
      let hi = u[2 * i + HI]!;
      let lo = u[2 * i + LO]!;
      let d = digit(hi, lo, level);
      while (d !== b) {
        const j = next[d]!;
        next[d] = j + 1;
        const h = u[2 * j + HI]!;
        const l = u[2 * j + LO]!;
        u[2 * j + HI] = hi;
        u[2 * j + LO] = lo;
        hi = h;
        lo = l;
        d = digit(hi, lo, level);
        s.done++;
      }
      u[2 * i + HI] = hi;
      u[2 * i + LO] = lo;
      next[b] = i + 1;
      if (++s.done >= STEP_WORK) {
        s.done = 0;
        yield;
      }
    }
  }
}

// Byte `level` (0 the most significant) of a double's key: its bits with a positive's sign bit set
// and a negative's bits all flipped, so that keys order as the numbers do (-0 below +0); every NaN
// the largest key.
function digit(hi: number, lo: number, level: number): number {
  if ((hi & 0x7ff00000) === 0x7ff00000 && ((hi & 0xfffff) | lo) !== 0) return DIGITS - 1;
  const negative = hi >>> 31 === 1;
  const word = level < 4 ? (negative ? ~hi : hi ^ 0x80000000) : negative ? ~lo : lo;
  return (word >>> (24 - 8 * (level & 3))) & 0xff;
}

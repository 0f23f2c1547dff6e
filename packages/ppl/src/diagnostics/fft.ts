import { finish, STEP_WORK } from "./steps.ts";

/**
 * In-place iterative radix-2 FFT of a complex sequence given as separate real and imaginary
 * arrays (the first `n` entries, n a power of two; the arrays may be longer, so that scratch
 * buffers of the largest size serve every smaller one).
 */
export function fftInPlace(re: Float64Array, im: Float64Array, n = re.length): void {
  finish(fftSteps(re, im, n));
}

/**
 * `fftInPlace` in steps: the generator yields after about STEP_WORK butterflies (a transform of
 * 2^21 points is 22 million of them, seconds that a stop signal could not interrupt). The
 * butterflies of a stage are independent, so doing them in ranges changes no bit.
 */
export function* fftSteps(re: Float64Array, im: Float64Array, n = re.length): Generator<void, void, void> {
  if ((n & (n - 1)) !== 0) throw new Error(`FFT length must be a power of two, got ${n}`);
  yield* bitReverseSteps(re, im, n);
  const table = twiddles(n);
  for (let stage = 2; stage <= n; stage <<= 1) {
    const half = stage >> 1;
    if (half >= STEP_WORK) {
      // Long blocks: a range of each block's butterflies at a time.
      for (let start = 0; start < n; start += stage) {
        for (let k = 0; k < half; k += STEP_WORK) {
          butterflies(re, im, table, stage, start, start + stage, k, Math.min(half, k + STEP_WORK));
          yield;
        }
      }
    } else {
      // Short blocks: as many whole blocks as make STEP_WORK butterflies.
      const span = (STEP_WORK / half) * stage;
      for (let start = 0; start < n; start += span) {
        butterflies(re, im, table, stage, start, Math.min(n, start + span), 0, half);
        yield;
      }
    }
  }
}

// The butterflies k0..k1-1 of the blocks of one stage that start in [from, to).
function butterflies(re: Float64Array, im: Float64Array, table: Twiddles, stage: number, from: number, to: number, k0: number, k1: number): void {
  const half = stage >> 1;
  const stride = table.size / stage;
  // Block by block, so that a stage reads memory in order whatever its size.
  for (let start = from; start < to; start += stage) {
    for (let k = k0; k < k1; k++) {
      const wr = table.cos[k * stride]!;
      const wi = table.sin[k * stride]!;
      const a = start + k;
      const b = a + half;
      const tr = wr * re[b]! - wi * im[b]!;
      const ti = wr * im[b]! + wi * re[b]!;
      re[b] = re[a]! - tr;
      im[b] = im[a]! - ti;
      re[a] = re[a]! + tr;
      im[a] = im[a]! + ti;
    }
  }
}

// Swaps each entry with the one at its bit-reversed index (the permutation is its own inverse), in ranges of STEP_WORK entries.
function* bitReverseSteps(re: Float64Array, im: Float64Array, n: number): Generator<void, void, void> {
  let j = 0;
  for (let from = 1; from < n; from += STEP_WORK) {
    j = bitReverse(re, im, n, from, Math.min(n, from + STEP_WORK), j);
    yield;
  }
}

// Entries from..to-1 of the bit-reversal; j is the reversed index of from - 1, and the reversed index of to - 1 is returned.
function bitReverse(re: Float64Array, im: Float64Array, n: number, from: number, to: number, j: number): number {
  for (let i = from; i < to; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      let t = re[i]!;
      re[i] = re[j]!;
      re[j] = t;
      t = im[i]!;
      im[i] = im[j]!;
      im[j] = t;
    }
  }
  return j;
}

/** exp(-2πi·j/size) for j < size/2, as cos and sin arrays. */
export interface Twiddles {
  readonly size: number;
  readonly cos: Float64Array;
  readonly sin: Float64Array;
}

// One table, of the largest size asked for: a transform of size n reads every (size/n)-th entry.
// Tables per size would hold twice the largest one (a 2^23-point table is 64 MB), and a summary of
// a long run transforms series of one size again and again.
let table: Twiddles = makeTwiddles(2);

/** The twiddle table for transforms of `n` points (n a power of two): of size n or larger. */
export function twiddles(n: number): Twiddles {
  if (table.size < n) table = makeTwiddles(n);
  return table;
}

function makeTwiddles(size: number): Twiddles {
  const half = size >> 1;
  const angle = (-2 * Math.PI) / size;
  const cos = new Float64Array(half);
  const sin = new Float64Array(half);
  // Computed directly (not by recurrence) to keep rounding error small.
  for (let k = 0; k < half; k++) {
    cos[k] = Math.cos(angle * k);
    sin[k] = Math.sin(angle * k);
  }
  return { size, cos, sin };
}

/** Smallest power of two that is at least n. */
export function nextPowerOfTwo(n: number): number {
  let m = 1;
  while (m < n) m <<= 1;
  return m;
}

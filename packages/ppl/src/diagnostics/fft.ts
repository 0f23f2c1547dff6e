/**
 * In-place iterative radix-2 FFT of a complex sequence given as separate real and imaginary
 * arrays (the first `n` entries, n a power of two; the arrays may be longer, so that scratch
 * buffers of the largest size serve every smaller one).
 */
export function fftInPlace(re: Float64Array, im: Float64Array, n = re.length): void {
  if ((n & (n - 1)) !== 0) throw new Error(`FFT length must be a power of two, got ${n}`);
  bitReverse(re, im, n);
  const table = twiddles(n);
  const size = table.size;
  for (let stage = 2; stage <= n; stage <<= 1) {
    const half = stage >> 1;
    const stride = size / stage;
    // Block by block, so that a stage reads memory in order whatever its size.
    for (let start = 0; start < n; start += stage) {
      for (let k = 0; k < half; k++) {
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
}

// Swaps each entry with the one at its bit-reversed index (the permutation is its own inverse).
function bitReverse(re: Float64Array, im: Float64Array, n: number): void {
  for (let i = 1, j = 0; i < n; i++) {
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

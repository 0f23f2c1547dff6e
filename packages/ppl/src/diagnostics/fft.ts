/**
 * In-place iterative radix-2 FFT of a complex sequence given as separate real
 * and imaginary arrays; the length must be a power of two.
 */
export function fftInPlace(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if ((n & (n - 1)) !== 0) throw new Error(`FFT length must be a power of two, got ${n}`);
  // Bit-reversal permutation.
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
  for (let size = 2; size <= n; size <<= 1) {
    const { cos, sin } = twiddles(size);
    butterflies(re, im, size, size >> 1, cos, sin);
  }
}

/** One radix-2 stage of `fftInPlace`: the butterflies of every block of `size` values. */
export function butterflies(re: Float64Array, im: Float64Array, size: number, halfSize: number, cos: Float64Array, sin: Float64Array): void {
  const n = re.length;
  for (let k = 0; k < halfSize; k++) {
    const wr = cos[k]!;
    const wi = sin[k]!;
    for (let start = 0; start < n; start += size) {
      const a = start + k;
      const b = a + halfSize;
      const tr = wr * re[b]! - wi * im[b]!;
      const ti = wr * im[b]! + wi * re[b]!;
      re[b] = re[a]! - tr;
      im[b] = im[a]! - ti;
      re[a] = re[a]! + tr;
      im[a] = im[a]! + ti;
    }
  }
}

// The bit-reversal permutation of each size, for transforms whose input is written in place of being swapped.
const reversals = new Map<number, Uint32Array>();

/** The bit-reversal permutation of 0..n-1 (n a power of two): where `fftInPlace`'s first step moves each index. */
export function bitReversal(n: number): Uint32Array {
  let rev = reversals.get(n);
  if (rev === undefined) {
    rev = new Uint32Array(n);
    for (let i = 1, j = 0; i < n; i++) {
      let bit = n >> 1;
      for (; j & bit; bit >>= 1) j ^= bit;
      j ^= bit;
      rev[i] = j;
    }
    reversals.set(n, rev);
  }
  return rev;
}

// The twiddles of each stage size, computed directly (not by recurrence) to keep rounding error
// small, once per size: a summary transforms thousands of series of the same length, and the
// trigonometric calls were half the time of the transforms. The values are the same as computing
// them in the loop.
const twiddleTables = new Map<number, { cos: Float64Array; sin: Float64Array }>();

export function twiddles(size: number): { cos: Float64Array; sin: Float64Array } {
  let table = twiddleTables.get(size);
  if (table === undefined) {
    const half = size >> 1;
    const angle = (-2 * Math.PI) / size;
    table = { cos: new Float64Array(half), sin: new Float64Array(half) };
    for (let k = 0; k < half; k++) {
      table.cos[k] = Math.cos(angle * k);
      table.sin[k] = Math.sin(angle * k);
    }
    twiddleTables.set(size, table);
  }
  return table;
}

/** Smallest power of two that is at least n. */
export function nextPowerOfTwo(n: number): number {
  let m = 1;
  while (m < n) m <<= 1;
  return m;
}

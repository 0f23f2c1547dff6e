import { bitReversal, butterflies, nextPowerOfTwo, twiddles } from "./fft.ts";
import { mean, varianceAbout } from "./moments.ts";

/**
 * Autocovariance at every lag 0..n-1 by FFT, using the "biased" estimator
 * (sum over n - t products divided by n) that Geyer recommends, as posterior does.
 */
export function autocovariance(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const out = new Float64Array(n);
  const m = mean(x);
  const varx = varianceAbout(x, m);
  if (!(varx > 0)) return out; // a constant sequence has zero autocovariance at every lag
  const re = unscaledAutocovariance(x, m);
  const scale = lagZeroScale(varx, n, re);
  for (let t = 0; t < n; t++) out[t] = re[t]! * scale;
  return out;
}

/**
 * Adds the autocovariance of `x` at lags 0..n-1 to `target`, given x's mean and variance (the
 * values `autocovariance` returns, added one by one, without an array for them); a constant series
 * adds nothing.
 */
export function addAutocovariance(x: ArrayLike<number>, m: number, varx: number, target: Float64Array): void {
  const n = x.length;
  if (!(varx > 0)) return;
  const re = unscaledAutocovariance(x, m);
  const scale = lagZeroScale(varx, n, re);
  for (let t = 0; t < n; t++) target[t] = target[t]! + re[t]! * scale;
}

// Scaling by the directly computed variance avoids the FFT's normalization and rounding at lag 0.
function lagZeroScale(varx: number, n: number, re: Float64Array): number {
  return (varx * (n - 1)) / n / re[0]!;
}

// Scratch arrays of each transform size, reused: a summary transforms thousands of series of the
// same length, and allocating them per series was a tenth of its time (and its garbage).
const scratch = new Map<number, { re: Float64Array; im: Float64Array; power: Float64Array }>();

/**
 * The circular autocorrelation sums of x - m zero-padded to a power of two at least 2n, at lags
 * 0..n-1 of the returned scratch array (valid until the next call): the power spectrum of a
 * forward FFT, transformed forward again (it is real and even, so a forward transform serves as
 * the inverse). Both transforms are `fftInPlace`'s butterflies, each computing what it did there,
 * with what a real input allows left out: the bit-reversal permutation is where each input is
 * written, the first two stages skip the products with zero imaginary parts, and the last stage
 * of the second transform computes only the real parts of lags below n. Left out are only
 * operations that returned one of their operands unchanged (x + 0, 1·x) and values never read, so
 * every value read is the one the full transforms give (up to the sign of zeros, which squaring
 * and the later sums erase).
 */
function unscaledAutocovariance(x: ArrayLike<number>, m: number): Float64Array {
  const n = x.length;
  // Padding to at least 2n makes the circular correlation equal the linear one.
  const size = nextPowerOfTwo(2 * n);
  let buffers = scratch.get(size);
  if (buffers === undefined) {
    buffers = { re: new Float64Array(size), im: new Float64Array(size), power: new Float64Array(size) };
    scratch.set(size, buffers);
  }
  const { re, im, power } = buffers;
  const rev = bitReversal(size);
  for (let i = 0; i < n; i++) re[rev[i]!] = x[i]! - m;
  for (let i = n; i < size; i++) re[rev[i]!] = 0;
  realTransform(re, im, size);
  for (let i = 0; i < size; i++) power[rev[i]!] = re[i]! * re[i]! + im[i]! * im[i]!;
  realTransform(power, im, size, n);
  return power;
}

/**
 * `fftInPlace` of bit-reversed real input (`re`; `im` is overwritten): the first two stages for a
 * zero imaginary part, then the general ones; with `needed`, the last stage computes only re[0..needed-1].
 */
function realTransform(re: Float64Array, im: Float64Array, size: number, needed = size): void {
  im.fill(0);
  if (size >= 2) {
    // Stage 1: the twiddle is (1, -0), so each butterfly is a sum and a difference of real values.
    for (let a = 0; a < size; a += 2) {
      const t = re[a + 1]!;
      re[a + 1] = re[a]! - t;
      re[a] = re[a]! + t;
    }
  }
  if (size >= 4) {
    // Stage 2: twiddles (1, -0) and (cos(-π/2), -1) on real values; the second leaves imaginary parts ±re[b].
    const wr = twiddles(4).cos[1]!;
    for (let start = 0; start < size; start += 4) {
      const t = re[start + 2]!;
      re[start + 2] = re[start]! - t;
      re[start] = re[start]! + t;
      const rb = re[start + 3]!;
      const tr = wr * rb;
      re[start + 3] = re[start + 1]! - tr;
      im[start + 3] = rb;
      re[start + 1] = re[start + 1]! + tr;
      im[start + 1] = -rb;
    }
  }
  for (let stage = 8; stage <= size; stage <<= 1) {
    const halfSize = stage >> 1;
    const { cos, sin } = twiddles(stage);
    if (stage === size && needed <= halfSize) {
      // Only the real parts of the first `needed` outputs are read.
      for (let a = 0; a < needed; a++) {
        const b = a + halfSize;
        re[a] = re[a]! + (cos[a]! * re[b]! - sin[a]! * im[b]!);
      }
      return;
    }
    butterflies(re, im, stage, halfSize, cos, sin);
  }
}

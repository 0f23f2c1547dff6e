import { fftSteps, nextPowerOfTwo, twiddles } from "./fft.ts";
import { mean, varianceAbout } from "./moments.ts";
import { finish, inRanges } from "./steps.ts";

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
  const re = finish(unscaledAutocovarianceSteps(x, m, n));
  const scale = lagZeroScale(varx, n, re);
  for (let t = 0; t < n; t++) out[t] = re[t]! * scale;
  return out;
}

/**
 * Adds the autocovariance of `x` at lags 0..target.length-1 (at most x.length) to `target`, given
 * x's mean and variance (the values `autocovariance` returns, added one by one, without an array
 * for them); a constant series adds nothing. Fewer lags take a smaller transform.
 */
export function addAutocovariance(x: ArrayLike<number>, m: number, varx: number, target: Float64Array): void {
  finish(addAutocovarianceSteps(x, m, varx, target));
}

/** `addAutocovariance` in steps: the generator yields inside the transforms and the loops around them (see fftSteps). */
export function* addAutocovarianceSteps(x: ArrayLike<number>, m: number, varx: number, target: Float64Array): Generator<void, void, void> {
  const n = x.length;
  if (!(varx > 0)) return;
  const lags = Math.min(target.length, n);
  const re = yield* unscaledAutocovarianceSteps(x, m, lags);
  const scale = lagZeroScale(varx, n, re);
  yield* inRanges(lags, (from, to) => {
    for (let t = from; t < to; t++) target[t] = target[t]! + re[t]! * scale;
  });
}

// Scaling by the directly computed variance avoids the FFT's normalization and rounding at lag 0.
function lagZeroScale(varx: number, n: number, re: Float64Array): number {
  return (varx * (n - 1)) / n / re[0]!;
}

// Scratch arrays of the largest transform so far, reused (a prefix serves a smaller one): a summary
// transforms thousands of series, and allocating them per series was a tenth of its time.
let scratch = { re: new Float64Array(0), im: new Float64Array(0), power: new Float64Array(0) };

/**
 * The circular autocorrelation sums of x - m zero-padded to N points, a power of two at least
 * n + lags - 1 (so that lags 0..lags-1 do not wrap around), at indices 0..lags-1 of the returned
 * scratch array (valid until the next call). The padded series is real, so each N-point transform
 * is one of N/2 complex points (even entries as real parts, odd as imaginary) and a split of its
 * result (Y_k = E_k + W^k O_k); the power spectrum is real and even, so a forward transform of it
 * serves as the inverse. Memory: 3·N/2 doubles and a twiddle table of N/2 points; a summary asks
 * for a few lags first (see ess.ts), which halves N.
 */
function* unscaledAutocovarianceSteps(x: ArrayLike<number>, m: number, lags: number): Generator<void, Float64Array, void> {
  const n = x.length;
  const size = Math.max(4, nextPowerOfTwo(n + lags - 1));
  const half = size >> 1;
  if (scratch.re.length < half) scratch = { re: new Float64Array(half), im: new Float64Array(half), power: new Float64Array(half + 1) };
  const { re, im, power } = scratch;
  yield* inRanges(half, (from, to) => {
    for (let k = from; k < to; k++) {
      const i = 2 * k;
      re[k] = i < n ? x[i]! - m : 0;
      im[k] = i + 1 < n ? x[i + 1]! - m : 0;
    }
  });
  yield* fftSteps(re, im, half);
  const w = halfTwiddles(size);
  // |Y_k|^2 for k = 0..N/2 from Z_k and Z_{N/2-k}.
  power[0] = (re[0]! + im[0]!) ** 2;
  power[half] = (re[0]! - im[0]!) ** 2;
  yield* inRanges(half, (from, to) => {
    for (let k = Math.max(1, from); k < to; k++) {
      const ar = re[k]!, ai = im[k]!, br = re[half - k]!, bi = im[half - k]!;
      const er = (ar + br) / 2, ei = (ai - bi) / 2, or = (ai + bi) / 2, oi = (br - ar) / 2;
      const wr = w.cos(k), wi = w.sin(k);
      const yr = er + wr * or - wi * oi;
      const yi = ei + wr * oi + wi * or;
      power[k] = yr * yr + yi * yi;
    }
  });
  // The spectrum, real and even (P_{N-j} = P_j), packed as before and transformed again.
  yield* inRanges(half, (from, to) => {
    for (let k = from; k < to; k++) {
      const j = 2 * k;
      re[k] = j <= half ? power[j]! : power[size - j]!;
      im[k] = j + 1 <= half ? power[j + 1]! : power[size - j - 1]!;
    }
  });
  yield* fftSteps(re, im, half);
  // The real parts of the result at lags below `lags` (≤ n ≤ N/2).
  yield* inRanges(lags, (from, to) => {
    for (let t = from; t < to; t++) {
      const b = t === 0 ? 0 : half - t;
      const ar = re[t]!, ai = im[t]!, br = re[b]!, bi = im[b]!;
      power[t] = (ar + br) / 2 + w.cos(t) * ((ai + bi) / 2) - w.sin(t) * ((br - ar) / 2);
    }
  });
  return power;
}

// exp(-2πi·k/N) for k < N/2 from the table of N/2 points (every other one) and, for odd k, one
// product with exp(-2πi/N): the table of N points would be twice as large.
function halfTwiddles(size: number): { cos: (k: number) => number; sin: (k: number) => number } {
  const t = twiddles(size >> 1);
  const stride = t.size / (size >> 1);
  const c1 = Math.cos((-2 * Math.PI) / size);
  const s1 = Math.sin((-2 * Math.PI) / size);
  const { cos, sin } = t;
  return {
    cos: (k) => {
      const j = (k >> 1) * stride;
      return (k & 1) === 0 ? cos[j]! : cos[j]! * c1 - sin[j]! * s1;
    },
    sin: (k) => {
      const j = (k >> 1) * stride;
      return (k & 1) === 0 ? sin[j]! : cos[j]! * s1 + sin[j]! * c1;
    },
  };
}

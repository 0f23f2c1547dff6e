import { fftInPlace, nextPowerOfTwo } from "./fft.ts";
import { mean, variance } from "./moments.ts";

/**
 * Autocovariance at every lag 0..n-1 by FFT, using the "biased" estimator
 * (sum over n - t products divided by n) that Geyer recommends, as posterior does.
 */
export function autocovariance(x: ArrayLike<number>): Float64Array {
  const n = x.length;
  const out = new Float64Array(n);
  const varx = variance(x);
  if (!(varx > 0)) return out; // a constant sequence has zero autocovariance at every lag
  // Padding to at least 2n makes the circular correlation equal the linear one.
  const size = nextPowerOfTwo(2 * n);
  const re = new Float64Array(size);
  const im = new Float64Array(size);
  const m = mean(x);
  for (let i = 0; i < n; i++) re[i] = x[i]! - m;
  fftInPlace(re, im);
  for (let i = 0; i < size; i++) {
    re[i] = re[i]! * re[i]! + im[i]! * im[i]!;
    im[i] = 0;
  }
  // The power spectrum is real and even, so a forward transform serves as the inverse.
  fftInPlace(re, im);
  // Scaling by the directly computed variance avoids the FFT's normalization and rounding at lag 0.
  const scale = (varx * (n - 1)) / n / re[0]!;
  for (let t = 0; t < n; t++) out[t] = re[t]! * scale;
  return out;
}

/**
 * Turning Philox output words into floating-point variates. Each formula is
 * chosen to be exact in f64 and easy to restate in GLSL.
 */

const TWO_POW_M20 = 2 ** -20;
const TWO_POW_M52 = 2 ** -52;
const TWO_POW_M53 = 2 ** -53;
const TWO_PI = 2 * Math.PI;

/**
 * Uniform double in the open interval (0, 1) from two 32-bit words:
 * u = ((hi >>> 12)·2³² + lo + 0.5)·2⁻⁵², i.e. a 52-bit integer plus one half.
 * Every step is exact in f64 and the result is never 0 or 1, so log(u) is finite.
 */
export function uniformFromWords(hi: number, lo: number): number {
  // Same sum as the formula above; each partial sum is exact, so the order is free.
  return (hi >>> 12) * TWO_POW_M20 + (lo >>> 0) * TWO_POW_M52 + TWO_POW_M53;
}

/** Box–Muller: the cosine branch of a standard normal pair from uniforms u1, u2 in (0, 1). */
export function boxMullerCos(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(TWO_PI * u2);
}

/** Box–Muller: the sine branch of a standard normal pair from uniforms u1, u2 in (0, 1). */
export function boxMullerSin(u1: number, u2: number): number {
  return Math.sqrt(-2 * Math.log(u1)) * Math.sin(TWO_PI * u2);
}

/** Standard exponential variate from a uniform in (0, 1) by inversion. */
export function exponentialFromUniform(u: number): number {
  return -Math.log(u);
}

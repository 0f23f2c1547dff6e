import gammaln from "@stdlib/math-base-special-gammaln";
import type { Rng } from "../random/rng.ts";

/**
 * Standard algorithms for non-uniform variates on plain numbers, used by every distribution's
 * `sample`. Each takes the Rng first so a draw depends only on the stream.
 */

/** log of a Gamma(shape, 1) variate (Marsaglia–Tsang; shape < 1 through the u^(1/shape) boost, kept in logs so tiny shapes do not underflow). */
export function logGammaVariate(rng: Rng, shape: number): number {
  if (shape < 1) return logGammaVariate(rng, shape + 1) + Math.log(rng.uniform()) / shape;
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number, v: number;
    do {
      x = rng.normal();
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = rng.uniform();
    if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return Math.log(d * v);
  }
}

/** Gamma(shape, rate) variate. */
export function gammaVariate(rng: Rng, shape: number, rate = 1): number {
  return Math.exp(logGammaVariate(rng, shape)) / rate;
}

/** Beta(a, b) variate as a ratio of gammas, computed in logs. */
export function betaVariate(rng: Rng, a: number, b: number): number {
  const lx = logGammaVariate(rng, a);
  const ly = logGammaVariate(rng, b);
  return 1 / (1 + Math.exp(ly - lx));
}

/** Poisson(rate) variate: multiplication of uniforms for small rates, the gamma/binomial recursion (Knuth) for large ones. */
export function poissonVariate(rng: Rng, rate: number): number {
  let k = 0;
  let lambda = rate;
  while (lambda > 30) {
    const m = Math.floor(0.875 * lambda);
    const x = gammaVariate(rng, m);
    if (x > lambda) return k + binomialVariate(rng, m - 1, lambda / x);
    k += m;
    lambda -= x;
  }
  const limit = Math.exp(-lambda);
  let prod = rng.uniform();
  while (prod > limit) {
    k++;
    prod *= rng.uniform();
  }
  return k;
}

/** Binomial(n, p) variate: Bernoulli sums for small n, the beta order-statistic recursion (Knuth) for large n. */
export function binomialVariate(rng: Rng, n: number, p: number): number {
  let k = 0;
  while (n > 40) {
    const a = 1 + Math.floor(n / 2);
    const b = n + 1 - a;
    const x = betaVariate(rng, a, b);
    if (x >= p) {
      n = a - 1;
      p = p / x;
    } else {
      k += a;
      n = b - 1;
      p = (p - x) / (1 - x);
    }
  }
  for (let i = 0; i < n; i++) if (rng.uniform() < p) k++;
  return k;
}

/** Index (0-based) drawn with the given non-negative weights. */
export function categoricalVariate(rng: Rng, weights: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < weights.length; i++) total += weights[i]!;
  let u = rng.uniform() * total;
  for (let i = 0; i < weights.length; i++) {
    u -= weights[i]!;
    if (u < 0) return i;
  }
  return weights.length - 1;
}

/** log Γ(x), for samplers and reference computations. */
export const lgammaNumber: (x: number) => number = gammaln;

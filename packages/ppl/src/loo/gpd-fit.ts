/**
 * The generalized Pareto fit of PSIS: Zhang & Stephens' (2009) empirical Bayes estimate, as loo
 * 2.5.1's `gpdfit` computes it (30 + floor(sqrt(n)) grid points, prior 3, and the weakly
 * informative prior on k of Vehtari et al.).
 */
import { logSumExp } from "./log-sum-exp.ts";

/** Shape k and scale sigma of a generalized Pareto distribution with location 0. */
export interface GpdFit {
  /** Shape; Infinity where the fit failed (loo's NaN → Inf). */
  readonly k: number;
  readonly sigma: number;
}

/** Fits a generalized Pareto distribution (location 0) to `x`, which must be sorted ascending. */
export function gpdFit(x: ArrayLike<number>): GpdFit {
  const n = x.length;
  const prior = 3;
  const m = 30 + Math.floor(Math.sqrt(n));
  // loo: xstar <- x[floor(N/4 + 0.5)], 1-based; the first quartile sets the grid's scale.
  const xstar = x[Math.floor(n / 4 + 0.5) - 1]!;
  const xmax = x[n - 1]!;
  const theta = new Float64Array(m);
  const logLik = new Float64Array(m);
  for (let j = 0; j < m; j++) {
    const t = 1 / xmax + (1 - Math.sqrt(m / (j + 1 - 0.5))) / prior / xstar;
    theta[j] = t;
    // n * lx(theta, x): the profile log likelihood of the grid point (loo's lx with a = -theta).
    const a = -t;
    const k = meanLog1p(a, x);
    logLik[j] = n * (Math.log(a / k) - k - 1);
  }
  const norm = logSumExp(logLik);
  let thetaHat = 0;
  for (let j = 0; j < m; j++) thetaHat += theta[j]! * Math.exp(logLik[j]! - norm);
  let k = meanLog1p(-thetaHat, x);
  // sigma comes from the unadjusted k, as in loo.
  const sigma = -k / thetaHat;
  // The weakly informative prior pulls k towards 0.5 with the weight of 10 observations.
  const a = 10;
  k = (k * n) / (n + a) + (a * 0.5) / (n + a);
  if (Number.isNaN(k)) k = Infinity;
  return { k, sigma };
}

/** Mean of log1p(a * x_i). */
function meanLog1p(a: number, x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.log1p(a * x[i]!);
  return s / x.length;
}

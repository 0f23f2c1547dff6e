/**
 * Pareto smoothed importance sampling of one set of log importance ratios, as loo 2.5.1's
 * `do_psis_i`: the largest ratios are replaced by the quantiles of a generalized Pareto fit to
 * them, and no smoothed weight may exceed the largest raw one.
 *
 * loo 2.5.1 truncates at the largest raw weight only; the S^(3/4)·mean truncation of the original
 * PSIS paper lives in its deprecated `psislw`, which `loo()` no longer calls.
 */
import { gpdFit } from "./gpd-fit.ts";

/** Smoothed log weights (not normalized) and the Pareto k of their tail. */
export interface PsisResult {
  readonly logWeights: Float64Array;
  /** Estimated shape of the tail; Infinity when the tail was too short or constant to fit. */
  readonly paretoK: number;
  /** Number of draws in the fitted tail. */
  readonly tailLength: number;
}

/** The fewest tail draws loo fits a generalized Pareto distribution to (`enough_tail_samples`). */
export const MIN_TAIL_LENGTH = 5;

/** Tail length for S draws with relative efficiency rEff: ceiling(min(0.2·S, 3·sqrt(S/rEff))), loo's `n_pareto`. */
export function psisTailLength(rEff: number, draws: number): number {
  return Math.ceil(Math.min(0.2 * draws, 3 * Math.sqrt(draws / rEff)));
}

/** PSIS of the log importance ratios of one observation (all chains' draws together). */
export function psis(logRatios: ArrayLike<number>, rEff: number): PsisResult {
  const n = logRatios.length;
  const tailLength = psisTailLength(rEff, n);
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (logRatios[i]! > max) max = logRatios[i]!;
  const lw = new Float64Array(n);
  for (let i = 0; i < n; i++) lw[i] = logRatios[i]! - max;
  let paretoK = Infinity;
  if (tailLength >= MIN_TAIL_LENGTH) {
    // A stable sort, as R's sort.int(index.return = TRUE): ties keep their order.
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => lw[a]! - lw[b]! || a - b);
    const first = n - tailLength;
    const tail = new Float64Array(tailLength);
    for (let j = 0; j < tailLength; j++) tail[j] = lw[order[first + j]!]!;
    if (Math.abs(tail[tailLength - 1]! - tail[0]!) >= Number.EPSILON / 100) {
      const cutoff = lw[order[first - 1]!]!;
      const smoothed = smoothTail(tail, cutoff);
      paretoK = smoothed.k;
      for (let j = 0; j < tailLength; j++) lw[order[first + j]!] = smoothed.tail[j]!;
    }
  }
  for (let i = 0; i < n; i++) lw[i] = (lw[i]! > 0 ? 0 : lw[i]!) + max;
  return { logWeights: lw, paretoK, tailLength };
}

// loo's psis_smooth_tail: fit the exceedances of exp(tail) over exp(cutoff), then put the fitted
// distribution's quantiles at (j - 0.5)/len in place of the sorted tail.
function smoothTail(tail: Float64Array, cutoff: number): { tail: Float64Array; k: number } {
  const len = tail.length;
  const expCutoff = Math.exp(cutoff);
  const exceed = new Float64Array(len);
  for (let j = 0; j < len; j++) exceed[j] = Math.exp(tail[j]!) - expCutoff;
  const { k, sigma } = gpdFit(exceed);
  if (!Number.isFinite(k)) return { tail, k };
  const out = new Float64Array(len);
  for (let j = 0; j < len; j++) out[j] = Math.log(gpdQuantile((j + 1 - 0.5) / len, k, sigma) + expCutoff);
  return { tail: out, k };
}

// loo's qgpd: NaN for a scale that is not positive.
function gpdQuantile(p: number, k: number, sigma: number): number {
  if (Number.isNaN(sigma) || sigma <= 0) return NaN;
  return (sigma * Math.expm1(-k * Math.log1p(-p))) / k;
}

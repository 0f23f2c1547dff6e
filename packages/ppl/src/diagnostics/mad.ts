import { median, quantileSorted } from "./quantile.ts";
import type { ParameterDraws } from "./parameter-draws.ts";

/** Scale factor that makes the MAD a consistent estimator of a normal sd (R's default). */
export const MAD_CONSTANT = 1.4826;

/** Median absolute deviation from the median, scaled by 1.4826 like R's `mad`. */
export function mad(values: ArrayLike<number>): number {
  const center = median(values);
  const deviations = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) deviations[i] = Math.abs(values[i]! - center);
  return MAD_CONSTANT * median(deviations);
}

/** `mad` of one parameter's pooled draws, NaN (NA) when a draw is NaN; the median of the deviations comes from their sort merged out of the draws' own. */
export function madOf(p: ParameterDraws): number {
  if (p.hasNaN()) return NaN;
  const folded = p.foldedSorted();
  // An infinite median leaves NaN deviations, whose median is NaN (as mad computes it).
  return folded === null ? mad(p.matrix.values) : MAD_CONSTANT * quantileSorted(folded, 0.5);
}

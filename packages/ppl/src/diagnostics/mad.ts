import { median } from "./quantile.ts";

/** Scale factor that makes the MAD a consistent estimator of a normal sd (R's default). */
export const MAD_CONSTANT = 1.4826;

/** Median absolute deviation from the median, scaled by 1.4826 like R's `mad`. */
export function mad(values: ArrayLike<number>): number {
  const center = median(values);
  const deviations = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) deviations[i] = Math.abs(values[i]! - center);
  return MAD_CONSTANT * median(deviations);
}

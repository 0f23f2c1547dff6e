/** Sorted copy of the values (ascending, NaN last). */
export function sortedCopy(values: ArrayLike<number>): Float64Array {
  const out = Float64Array.from(values as ArrayLike<number>);
  out.sort();
  return out;
}

/**
 * Quantile of already sorted values by R's type 7 definition:
 * linear interpolation between order statistics at 1 + (n-1)p.
 */
export function quantileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const index = (n - 1) * p; // 0-based form of R's 1 + (n-1)p
  const lo = Math.floor(index);
  const hi = Math.ceil(index);
  const qLo = sorted[lo]!;
  const qHi = sorted[hi]!;
  const h = index - lo;
  // R interpolates only when the neighbours differ, so ties return an exact draw.
  if (h > 0 && qHi !== qLo) return (1 - h) * qLo + h * qHi;
  return qLo;
}

/** Quantile by R's type 7 definition; NaN if any value is NaN. */
export function quantile(values: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile probability must be in [0, 1], got ${p}`);
  for (let i = 0; i < values.length; i++) if (Number.isNaN(values[i]!)) return NaN;
  return quantileSorted(sortedCopy(values), p);
}

/** Median (type 7 quantile at 0.5). */
export function median(values: ArrayLike<number>): number {
  return quantile(values, 0.5);
}

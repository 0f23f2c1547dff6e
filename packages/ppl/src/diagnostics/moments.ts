/** Arithmetic mean. */
export function mean(values: ArrayLike<number>): number {
  const n = values.length;
  if (n === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += values[i]!;
  const m = sum / n;
  if (!Number.isFinite(m)) return m;
  // A second pass corrects the rounding error of the first, as R's mean does.
  let correction = 0;
  for (let i = 0; i < n; i++) correction += values[i]! - m;
  return m + correction / n;
}

/** Sample variance with denominator n - 1 (R's `var`). */
export function variance(values: ArrayLike<number>): number {
  if (values.length < 2) return NaN;
  return varianceAbout(values, mean(values));
}

/**
 * `variance(values)` when their mean `m` is already known (it must be `mean(values)`): the
 * diagnostics need both of many series, and the mean's two passes are then made once.
 */
export function varianceAbout(values: ArrayLike<number>, m: number): number {
  const n = values.length;
  if (n < 2) return NaN;
  let ss = 0;
  for (let i = 0; i < n; i++) {
    const d = values[i]! - m;
    ss += d * d;
  }
  return ss / (n - 1);
}

/** Sample standard deviation with denominator n - 1 (R's `sd`). */
export function sd(values: ArrayLike<number>): number {
  return Math.sqrt(variance(values));
}

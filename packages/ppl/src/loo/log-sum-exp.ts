/** log(sum(exp(x))) without overflow, as matrixStats' logSumExp: −∞ for no terms or all −∞, NaN if any is NaN. */
export function logSumExp(x: ArrayLike<number>): number {
  let max = -Infinity;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (Number.isNaN(v)) return NaN;
    if (v > max) max = v;
  }
  if (max === -Infinity || max === Infinity) return max;
  let s = 0;
  for (let i = 0; i < x.length; i++) s += Math.exp(x[i]! - max);
  return max + Math.log(s);
}

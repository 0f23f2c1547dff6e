/**
 * Kernel density estimates for the report's per-chain density plots: a Gaussian kernel with
 * Silverman's rule-of-thumb bandwidth from the pooled draws, so that every chain is smoothed
 * alike and the curves of chains that agree lie on top of each other (as ArviZ's plot_trace).
 */
import { quantile, sd } from "@ppl/ppl";

/** Silverman's bandwidth 0.9 · min(sd, IQR / 1.34) · n^(-1/5); a positive fallback when the draws are constant. */
export function silvermanBandwidth(values: ArrayLike<number>): number {
  const finite = Float64Array.from(Array.from(values).filter(Number.isFinite));
  const n = finite.length;
  if (n < 2) return 1;
  const s = sd(finite);
  const iqr = quantile(finite, 0.75) - quantile(finite, 0.25);
  const spread = Math.min(s, iqr / 1.34) || s;
  if (!(spread > 0)) return Math.abs(finite[0]!) * 0.01 || 1;
  return 0.9 * spread * n ** -0.2;
}

/** The density of `values` at each point of `grid` (it integrates to 1 over the real line). */
export function gaussianKde(values: ArrayLike<number>, grid: readonly number[], bandwidth: number): number[] {
  const out = new Array<number>(grid.length).fill(0);
  let n = 0;
  const norm = 1 / (bandwidth * Math.sqrt(2 * Math.PI));
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    n++;
    for (let g = 0; g < grid.length; g++) {
      const z = (grid[g]! - v) / bandwidth;
      // Beyond 6 bandwidths a draw adds less than 1e-8 of its peak: skipping it saves most of the exp calls.
      if (z > -6 && z < 6) out[g]! += Math.exp(-0.5 * z * z);
    }
  }
  return n === 0 ? out : out.map((d) => (d * norm) / n);
}

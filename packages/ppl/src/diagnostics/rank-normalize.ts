import type { ChainMatrix } from "./draws.ts";
import { normalQuantile } from "./distribution-quantiles.ts";

/** Blom's fractional offset, posterior's default for rank normalization. */
export const RANK_OFFSET = 3 / 8;

/** Ranks (1-based) of all values, ties getting the average of their ranks. */
export function averageRanks(values: ArrayLike<number>): Float64Array {
  const n = values.length;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // Explicit comparisons keep the order consistent for infinities (Inf - Inf is NaN).
  order.sort((a, b) => (values[a]! < values[b]! ? -1 : values[a]! > values[b]! ? 1 : 0));
  const ranks = new Float64Array(n);
  let start = 0;
  while (start < n) {
    let end = start + 1;
    while (end < n && values[order[end]!] === values[order[start]!]) end++;
    // Positions start..end-1 (0-based) share the mean of ranks start+1..end.
    const rank = (start + 1 + end) / 2;
    for (let k = start; k < end; k++) ranks[order[k]!] = rank;
    start = end;
  }
  return ranks;
}

/**
 * Rank-normalizes draws pooled over all chains: average ranks r become
 * qnorm((r - 3/8) / (S + 1/4)), S being the total number of draws.
 */
export function rankNormalize(m: ChainMatrix): ChainMatrix {
  const ranks = averageRanks(m.values);
  const s = ranks.length;
  const values = new Float64Array(s);
  for (let i = 0; i < s; i++) {
    values[i] = normalQuantile((ranks[i]! - RANK_OFFSET) / (s - 2 * RANK_OFFSET + 1));
  }
  return { chains: m.chains, iterations: m.iterations, values };
}

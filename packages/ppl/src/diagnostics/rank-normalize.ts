import type { ChainMatrix } from "./draws.ts";
import { normalQuantile } from "./distribution-quantiles.ts";
import { sortOrder } from "./sort-order.ts";

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
  for (let i = 0; i < m.values.length; i++) {
    if (Number.isNaN(m.values[i]!)) return rankNormalizeByComparison(m);
  }
  return rankNormalizeOrdered(m, sortOrder(m.values));
}

// NaN has no place in an order (every comparison with it is false), so draws with NaN keep the
// ranks of the comparison sort, whatever order it leaves them in.
function rankNormalizeByComparison(m: ChainMatrix): ChainMatrix {
  const ranks = averageRanks(m.values);
  const s = ranks.length;
  const values = new Float64Array(s);
  for (let i = 0; i < s; i++) values[i] = normalScore(ranks[i]!, s);
  return { chains: m.chains, iterations: m.iterations, values };
}

/**
 * `rankNormalize(m)` for draws without NaN given their ascending order (`order[k]` is the position
 * of the k-th smallest; the diagnostics sort a parameter's draws once and share the order). Runs of
 * equal values get the mean of their ranks, as in `averageRanks`.
 */
export function rankNormalizeOrdered(m: ChainMatrix, order: Uint32Array): ChainMatrix {
  const x = m.values;
  const s = x.length;
  const scores = integerRankScores(s);
  const values = new Float64Array(s);
  let start = 0;
  while (start < s) {
    const v = x[order[start]!]!;
    let end = start + 1;
    while (end < s && x[order[end]!] === v) end++;
    const rank = (start + 1 + end) / 2;
    const z = Number.isInteger(rank) ? integerRankScore(scores, rank, s) : normalScore(rank, s);
    for (let k = start; k < end; k++) values[order[k]!] = z;
    start = end;
  }
  return { chains: m.chains, iterations: m.iterations, values };
}

/** The normal score of a (mean) rank among `s` values: qnorm((rank - 3/8) / (s + 1/4)). */
export function normalScore(rank: number, s: number): number {
  return normalQuantile((rank - RANK_OFFSET) / (s - 2 * RANK_OFFSET + 1));
}

// The normal scores of the integer ranks 1..S, computed on first use: every parameter of a run has
// the same S, and without ties its ranks are exactly 1..S, so one table serves them all (NaN marks
// a score not computed yet: no score is NaN).
const scoreTables = new Map<number, Float64Array>();

function integerRankScores(s: number): Float64Array {
  let table = scoreTables.get(s);
  if (table === undefined) {
    table = new Float64Array(s).fill(NaN);
    scoreTables.set(s, table);
  }
  return table;
}

function integerRankScore(table: Float64Array, rank: number, s: number): number {
  let z = table[rank - 1]!;
  if (Number.isNaN(z)) {
    z = normalScore(rank, s);
    table[rank - 1] = z;
  }
  return z;
}

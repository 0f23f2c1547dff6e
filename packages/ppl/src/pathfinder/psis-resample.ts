/**
 * Multi-path Pathfinder's importance resampling (the paper's Algorithm 5, Stan's
 * `pathfinder_lbfgs_multi`): Pareto-smoothed importance weights of the pooled draws, log ratios
 * lp__ − lp_approx__, with loo's PSIS (loo/psis.ts, relative efficiency 1 as Stan's tail length
 * min(0.2·S, 3√S)), then draws with replacement in proportion to the weights. Draw i of the
 * resampling reads uniform i of the stream (seed, 0, 0, Pathfinder, 0), so the first draws are
 * the same whatever their count.
 */
import { psis } from "../loo/psis.ts";
import { Purpose, streamUniform, type SeedKey } from "../random/streams.ts";

/** Normalized importance weights (0 for a draw whose log ratio is not finite) and the Pareto k of their tail. */
export interface ImportanceWeights {
  readonly weights: Float64Array;
  /**
   * The fitted tail shape; NaN when every finite log ratio is the same to rounding (the
   * approximation is the density up to its constant: equal weights, no tail to fit), Infinity when
   * the tail is too short to fit.
   */
  readonly paretoK: number;
}

/** Log ratios within this of each other (relative to their size, at least 1) count as equal. */
const EQUAL_RATIOS = 1e-9;

/** PSIS weights of the log importance ratios; null when no ratio is finite. */
export function psisWeights(logRatios: Float64Array): ImportanceWeights | null {
  const finite: number[] = [];
  for (let i = 0; i < logRatios.length; i++) if (Number.isFinite(logRatios[i]!)) finite.push(i);
  if (finite.length === 0) return null;
  const lo = Math.min(...finite.map((i) => logRatios[i]!));
  const hi = Math.max(...finite.map((i) => logRatios[i]!));
  if (hi - lo <= EQUAL_RATIOS * Math.max(1, Math.abs(hi))) {
    const weights = new Float64Array(logRatios.length);
    for (const i of finite) weights[i] = 1 / finite.length;
    return { weights, paretoK: NaN };
  }
  const smoothed = psis(finite.map((i) => logRatios[i]!), 1);
  let max = -Infinity;
  for (const lw of smoothed.logWeights) max = Math.max(max, lw);
  const weights = new Float64Array(logRatios.length);
  let total = 0;
  finite.forEach((i, j) => {
    weights[i] = Math.exp(smoothed.logWeights[j]! - max);
    total += weights[i]!;
  });
  for (let i = 0; i < weights.length; i++) weights[i] = weights[i]! / total;
  return { weights, paretoK: smoothed.paretoK };
}

/** Indices of resampled draws `first` … `first + count − 1`, each drawn with probability its weight. */
export function resampleIndices(weights: Float64Array, key: SeedKey, count: number, first = 0): number[] {
  const cumulative = new Float64Array(weights.length);
  let t = 0;
  for (let i = 0; i < weights.length; i++) cumulative[i] = t += weights[i]!;
  const out: number[] = [];
  for (let i = first; i < first + count; i++) {
    const u = streamUniform(key, 0, 0, Purpose.Pathfinder, 0, Math.floor(i / 2), (i % 2) as 0 | 1) * t;
    let lo = 0;
    let hi = weights.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! > u) hi = mid;
      else lo = mid + 1;
    }
    out.push(lo);
  }
  return out;
}

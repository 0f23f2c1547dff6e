/**
 * The draws of multi-path Pathfinder from its paths' draws: pooled in path order, then (by
 * default) resampled with replacement by their Pareto-smoothed importance weights.
 */
import type { SeedKey } from "../random/streams.ts";
import type { ApproximateDraws } from "./approximate-draws.ts";
import { psisWeights, resampleIndices } from "./psis-resample.ts";
import type { SinglePathResult } from "./single-path.ts";

/** Every successful path's draws, one after the other. */
export function poolDraws(paths: readonly SinglePathResult[]): ApproximateDraws {
  const all = paths.flatMap((p) => (p.draws === null ? [] : [p.draws]));
  const n = all.reduce((t, d) => t + d.lp.length, 0);
  const lp = new Float64Array(n);
  const lpApprox = new Float64Array(n);
  let at = 0;
  for (const d of all) {
    lp.set(d.lp, at);
    lpApprox.set(d.lpApprox, at);
    at += d.lp.length;
  }
  return { x: all.flatMap((d) => d.x), lp, lpApprox };
}

/** The output draws and the Pareto k of their importance weights. */
export interface PooledDraws {
  readonly draws: ApproximateDraws;
  /** Pareto k of the smoothed weights' tail (Infinity when the tail was too short to fit, NaN when every weight is the same). */
  readonly paretoK: number;
  readonly resampled: boolean;
}

/** The successful paths' draws pooled, and resampled (`count` draws from index `first`) when `resample`. */
export function psisResample(ok: readonly SinglePathResult[], key: SeedKey, resample: boolean, count: number, first: number): PooledDraws {
  const pooled = poolDraws(ok);
  const ratios = new Float64Array(pooled.lp.length);
  for (let i = 0; i < ratios.length; i++) ratios[i] = pooled.lp[i]! - pooled.lpApprox[i]!;
  const w = psisWeights(ratios);
  const paretoK = w?.paretoK ?? Infinity;
  if (!resample || w === null) return { draws: pooled, paretoK, resampled: false };
  const idx = resampleIndices(w.weights, key, count, first);
  return {
    draws: { x: idx.map((i) => pooled.x[i]!), lp: Float64Array.from(idx, (i) => pooled.lp[i]!), lpApprox: Float64Array.from(idx, (i) => pooled.lpApprox[i]!) },
    paretoK, resampled: true,
  };
}

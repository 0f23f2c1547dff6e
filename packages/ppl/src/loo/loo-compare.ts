/** Comparison of models by PSIS-LOO, as loo 2.5.1's `loo_compare`: the best model first, differences to it. */
import { sd } from "../diagnostics/moments.ts";
import type { LooResult } from "./loo.ts";

/** One model's row of the comparison. */
export interface LooCompareRow {
  /** The name the model was given. */
  readonly model: string;
  /** elpd_loo of this model minus that of the best (0 for the best, negative for the others). */
  readonly elpd_diff: number;
  /** Standard error of elpd_diff from the pointwise differences: sqrt(N) · sd. */
  readonly se_diff: number;
  readonly elpd_loo: number;
  readonly se_elpd_loo: number;
  readonly p_loo: number;
  readonly se_p_loo: number;
  readonly looic: number;
  readonly se_looic: number;
}

/** Compares two or more models fitted to the same observations; rows ordered by elpd_loo, highest first (ties keep input order). */
export function looCompare(models: ReadonlyArray<{ readonly name: string; readonly loo: LooResult }>): LooCompareRow[] {
  if (models.length < 2) throw new Error("looCompare: needs at least two models");
  const n = models[0]!.loo.observations;
  for (const m of models) {
    if (m.loo.observations !== n) {
      throw new Error(`looCompare: model '${m.name}' has ${m.loo.observations} observations, model '${models[0]!.name}' has ${n}; compare models of the same data`);
    }
  }
  // Array.prototype.sort is stable, as R's order.
  const order = models.map((_, i) => i).sort((a, b) => models[b]!.loo.elpd_loo - models[a]!.loo.elpd_loo);
  const best = models[order[0]!]!.loo.pointwise.elpd_loo;
  return order.map((i) => {
    const { name, loo } = models[i]!;
    const diffs = new Float64Array(n);
    let sum = 0;
    for (let j = 0; j < n; j++) {
      diffs[j] = loo.pointwise.elpd_loo[j]! - best[j]!;
      sum += diffs[j]!;
    }
    return {
      model: name,
      elpd_diff: sum,
      se_diff: Math.sqrt(n) * sd(diffs),
      elpd_loo: loo.elpd_loo,
      se_elpd_loo: loo.se_elpd_loo,
      p_loo: loo.p_loo,
      se_p_loo: loo.se_p_loo,
      looic: loo.looic,
      se_looic: loo.se_looic,
    };
  });
}

/**
 * The Pareto k diagnostic of PSIS-LOO, with loo's categories: (-Inf, 0.5] good, (0.5, 0.7] ok,
 * (0.7, 1] bad, (1, Inf) very bad. Above 0.7 the importance-sampling estimate of that
 * observation's elpd is unreliable; above 1 its variance is infinite.
 */

/** Upper bounds of loo's k categories: good ≤ 0.5 < ok ≤ 0.7 < bad ≤ 1 < very bad. */
export const PARETO_K_THRESHOLDS = { good: 0.5, ok: 0.7, bad: 1 } as const;

/** How many observations fall in each of loo's k categories. */
export interface ParetoKCounts {
  readonly good: number;
  readonly ok: number;
  readonly bad: number;
  readonly very_bad: number;
}

/** One of loo's k categories. */
export type ParetoKCategory = keyof ParetoKCounts;

/** The category of one k (Infinity, from a tail too short to fit, is very bad). */
export function paretoKCategory(k: number): ParetoKCategory {
  if (k <= PARETO_K_THRESHOLDS.good) return "good";
  if (k <= PARETO_K_THRESHOLDS.ok) return "ok";
  if (k <= PARETO_K_THRESHOLDS.bad) return "bad";
  return "very_bad";
}

/** Counts of the k values in each category, as loo's pareto_k_table. */
export function paretoKCounts(k: ArrayLike<number>): ParetoKCounts {
  const counts = { good: 0, ok: 0, bad: 0, very_bad: 0 };
  for (let i = 0; i < k.length; i++) counts[paretoKCategory(k[i]!)]++;
  return counts;
}

/** The warnings loo gives for these k values (none when every k ≤ 0.7), one line each. */
export function paretoKWarnings(k: ArrayLike<number>): string[] {
  const counts = paretoKCounts(k);
  const n = k.length;
  const out: string[] = [];
  const which = (c: ParetoKCategory): string =>
    Array.from(k, (v, i) => (paretoKCategory(v) === c ? i + 1 : 0)).filter((i) => i > 0).join(", ");
  if (counts.bad > 0) out.push(`${counts.bad} of ${n} observations have a bad Pareto k (0.7 < k <= 1): ${which("bad")}; their elpd estimates are unreliable`);
  if (counts.very_bad > 0) out.push(`${counts.very_bad} of ${n} observations have a very bad Pareto k (k > 1): ${which("very_bad")}; their elpd estimates are unreliable`);
  return out;
}

/**
 * `ppl report --log-scale`: which parameters get a log axis in their density, trace and
 * prior-against-posterior panels. Names follow Stan's rules (a base name selects every element);
 * `auto` adds every parameter whose draws are all positive and spread over more than a factor of
 * AUTO_RATIO between their 5% and 95% quantiles, where a linear axis squeezes the bulk of the
 * draws against zero (scales such as a hierarchical sd). The CSV does not record a parameter's
 * declared bounds, so the rule reads the draws: a parameter declared positive has only positive draws.
 */
import { quantile } from "@ppl/ppl";
import { usageError } from "../exit-codes.ts";
import { selectVariables } from "../variable-filter.ts";

/** The keyword of --log-scale that applies the automatic rule. */
export const AUTO = "auto";
/** Ratio of the 95% to the 5% quantile above which `auto` picks a positive parameter. */
export const AUTO_RATIO = 10;

/** The names (among `shown`) that get a log axis; a named parameter with a draw ≤ 0 is a usage error. */
export function logScaled(parameters: Readonly<Record<string, readonly ArrayLike<number>[]>>, shown: readonly string[], wanted: readonly string[] | undefined): Set<string> {
  const out = new Set<string>();
  if (wanted === undefined) return out;
  const auto = wanted.some((w) => w.trim() === AUTO);
  const named = wanted.filter((w) => w.trim() !== AUTO);
  if (named.length > 0) {
    for (const name of selectVariables(shown, named, false, "--log-scale").names) {
      const low = minimum(parameters[name]!);
      if (!(low > 0)) throw usageError(`--log-scale: '${name}' has a draw of ${low}; a log axis needs positive draws (leave it out, or pick positive parameters such as scales)`);
      out.add(name);
    }
  }
  if (auto) {
    for (const name of shown) {
      const draws = parameters[name]!;
      if (!(minimum(draws) > 0)) continue;
      const pooled = Float64Array.from(draws.flatMap((c) => Array.from(c)));
      if (quantile(pooled, 0.95) > AUTO_RATIO * quantile(pooled, 0.05)) out.add(name);
    }
  }
  return out;
}

function minimum(chains: readonly ArrayLike<number>[]): number {
  let m = Infinity;
  for (const c of chains) for (let i = 0; i < c.length; i++) if (c[i]! < m || Number.isNaN(c[i]!)) m = c[i]!;
  return m;
}

import { type ChainMatrix, type Draws, chainOf, mapMatrix, shouldReturnNA, toChainMatrix } from "./draws.ts";
import { mean, variance } from "./moments.ts";
import { median } from "./quantile.ts";
import { rankNormalize } from "./rank-normalize.ts";
import { splitChains } from "./split-chains.ts";

/**
 * Potential scale reduction of a chain matrix (chains already split if wanted),
 * from between- and within-chain variances; NaN (NA) for non-finite or constant input.
 */
export function rhatOfMatrix(m: ChainMatrix): number {
  if (shouldReturnNA(m.values)) return NaN;
  const n = m.iterations;
  const chainMeans = new Float64Array(m.chains);
  const chainVars = new Float64Array(m.chains);
  for (let c = 0; c < m.chains; c++) {
    const chain = chainOf(m, c);
    chainMeans[c] = mean(chain);
    chainVars[c] = variance(chain);
  }
  const varBetween = n * variance(chainMeans);
  const varWithin = mean(chainVars);
  return Math.sqrt((varBetween / varWithin + n - 1) / n);
}

/** Basic split R-hat without rank normalization (posterior's `rhat_basic`). */
export function rhatBasic(draws: Draws): number {
  return rhatOfMatrix(splitChains(toChainMatrix(draws)));
}

/** Draws folded around their pooled median: |x - median(x)|. */
export function foldDraws(m: ChainMatrix): ChainMatrix {
  const center = median(m.values);
  return mapMatrix(m, (x) => Math.abs(x - center));
}

/** Rank-normalized split R-hat: the larger of the bulk and the folded (tail) R-hat. */
export function rhat(draws: Draws): number {
  const m = toChainMatrix(draws);
  for (let i = 0; i < m.values.length; i++) if (Number.isNaN(m.values[i]!)) return NaN;
  const bulk = rhatOfMatrix(rankNormalize(splitChains(m)));
  const tail = rhatOfMatrix(rankNormalize(splitChains(foldDraws(m))));
  if (Number.isNaN(bulk) || Number.isNaN(tail)) return NaN;
  return Math.max(bulk, tail);
}

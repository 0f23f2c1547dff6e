import { type ChainMatrix, type Draws, chainOf, shouldReturnNA } from "./draws.ts";
import { type SeriesPass, seriesPass } from "./ess.ts";
import { mean, variance } from "./moments.ts";
import { ParameterDraws } from "./parameter-draws.ts";

/**
 * Potential scale reduction of a chain matrix (chains already split if wanted),
 * from between- and within-chain variances; NaN (NA) for non-finite or constant input.
 */
export function rhatOfMatrix(m: ChainMatrix): number {
  if (shouldReturnNA(m.values)) return NaN;
  return rhatFromPass(seriesPass(m.chains, m.iterations, (c) => chainOf(m, c), 0));
}

/** `rhatOfMatrix` from a pass over the matrix's series (their means and variances). */
export function rhatFromPass(pass: SeriesPass): number {
  if (pass.returnsNA) return NaN;
  const n = pass.n;
  const varBetween = n * variance(pass.means);
  const varWithin = mean(pass.variances);
  return Math.sqrt((varBetween / varWithin + n - 1) / n);
}

/** Basic split R-hat without rank normalization (posterior's `rhat_basic`). */
export function rhatBasic(draws: Draws): number {
  return rhatBasicOf(ParameterDraws.of(draws));
}

/** Draws folded around their pooled median: |x - median(x)|. */
export function foldDraws(m: ChainMatrix): ChainMatrix {
  return new ParameterDraws(m).folded();
}

/** Rank-normalized split R-hat: the larger of the bulk and the folded (tail) R-hat. */
export function rhat(draws: Draws): number {
  return rhatOf(ParameterDraws.of(draws));
}

/** `rhatBasic` of one parameter's draws. */
export function rhatBasicOf(p: ParameterDraws): number {
  return rhatOfMatrix(p.split());
}

/** `rhat` of one parameter's draws. */
export function rhatOf(p: ParameterDraws): number {
  if (p.hasNaN()) return NaN;
  const bulk = rhatOfMatrix(p.bulkNormalized());
  const tail = rhatOfMatrix(p.tailNormalized());
  if (Number.isNaN(bulk) || Number.isNaN(tail)) return NaN;
  return Math.max(bulk, tail);
}

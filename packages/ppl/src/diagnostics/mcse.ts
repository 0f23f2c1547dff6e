import { type Draws, mapMatrix } from "./draws.ts";
import { essBasicOf, essOfMatrix, essQuantileOf } from "./ess.ts";
import { mean } from "./moments.ts";
import { betaQuantile } from "./distribution-quantiles.ts";
import { ParameterDraws } from "./parameter-draws.ts";
import { splitChains } from "./split-chains.ts";

/** Monte Carlo standard error of the mean: sd / sqrt(ESS of the mean). */
export function mcseMean(draws: Draws): number {
  const p = ParameterDraws.of(draws);
  return mcseMeanFrom(p, essBasicOf(p));
}

/** `mcseMean` of one parameter's draws given their basic ESS (`essBasicOf`, which it shares with ess_basic). */
export function mcseMeanFrom(p: ParameterDraws, essBasic: number): number {
  return p.sd() / Math.sqrt(essBasic);
}

/**
 * Monte Carlo standard error of the sd without assuming normality: the
 * variance of the variance by moments (Kenney and Keeping), its ESS taken from
 * the squared centred draws, then a first-order Taylor step from variance to sd.
 */
export function mcseSd(draws: Draws): number {
  return mcseSdOf(ParameterDraws.of(draws));
}

/** `mcseSd` of one parameter's draws. */
export function mcseSdOf(p: ParameterDraws): number {
  const center = p.mean();
  const squared = mapMatrix(p.matrix, (x) => (x - center) * (x - center));
  const ess = essOfMatrix(splitChains(squared));
  const eVar = mean(squared.values);
  const fourth = mean(squared.values.map((s) => s * s));
  const varVar = (fourth - eVar * eVar) / ess;
  return Math.sqrt(varVar / eVar / 4);
}

/** Standard normal probabilities at -1 and +1 sd, as posterior writes them. */
const ONE_SIGMA_PROBS: readonly [number, number] = [0.1586553, 0.8413447];

/**
 * Monte Carlo standard error of the `prob` quantile: half the distance between
 * the order statistics at the ±1 sd quantiles of the Beta distribution that the
 * quantile's indicator ESS implies.
 */
export function mcseQuantile(draws: Draws, prob: number): number {
  const p = ParameterDraws.of(draws);
  return mcseQuantileFrom(p, prob, essQuantileOf(p, prob));
}

/** `mcseQuantile` of one parameter's draws given the quantile's ESS (`essQuantileOf`, which it shares with ess_tail). */
export function mcseQuantileFrom(p: ParameterDraws, prob: number, ess: number): number {
  return Number.isNaN(ess) ? NaN : mcseQuantileSorted(p.sorted(), prob, ess);
}

/** `mcseQuantile` from the pooled draws sorted ascending and the quantile's ESS. */
export function mcseQuantileSorted(sorted: Float64Array, prob: number, ess: number): number {
  if (Number.isNaN(ess)) return NaN;
  const alpha = ess * prob + 1;
  const beta = ess * (1 - prob) + 1;
  const a1 = betaQuantile(ONE_SIGMA_PROBS[0], alpha, beta);
  const a2 = betaQuantile(ONE_SIGMA_PROBS[1], alpha, beta);
  const s = sorted.length;
  // 1-based order statistics, clamped to the sample.
  const lo = Math.max(Math.floor(a1 * s), 1);
  const hi = Math.min(Math.ceil(a2 * s), s);
  return (sorted[hi - 1]! - sorted[lo - 1]!) / 2;
}

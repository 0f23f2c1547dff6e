import { type Draws, mapMatrix, toChainMatrix } from "./draws.ts";
import { essOfMatrix, essQuantileOfMatrix } from "./ess.ts";
import { mean, sd } from "./moments.ts";
import { betaQuantile } from "./distribution-quantiles.ts";
import { sortedCopy } from "./quantile.ts";
import { splitChains } from "./split-chains.ts";

/** Monte Carlo standard error of the mean: sd / sqrt(ESS of the mean). */
export function mcseMean(draws: Draws): number {
  const m = toChainMatrix(draws);
  return sd(m.values) / Math.sqrt(essOfMatrix(splitChains(m)));
}

/**
 * Monte Carlo standard error of the sd without assuming normality: the
 * variance of the variance by moments (Kenney and Keeping), its ESS taken from
 * the squared centred draws, then a first-order Taylor step from variance to sd.
 */
export function mcseSd(draws: Draws): number {
  const m = toChainMatrix(draws);
  const center = mean(m.values);
  const squared = mapMatrix(m, (x) => (x - center) * (x - center));
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
  const m = toChainMatrix(draws);
  const ess = essQuantileOfMatrix(m, prob);
  if (Number.isNaN(ess)) return NaN;
  const alpha = ess * prob + 1;
  const beta = ess * (1 - prob) + 1;
  const a1 = betaQuantile(ONE_SIGMA_PROBS[0], alpha, beta);
  const a2 = betaQuantile(ONE_SIGMA_PROBS[1], alpha, beta);
  const sorted = sortedCopy(m.values);
  const s = sorted.length;
  // 1-based order statistics, clamped to the sample.
  const lo = Math.max(Math.floor(a1 * s), 1);
  const hi = Math.min(Math.ceil(a2 * s), s);
  return (sorted[hi - 1]! - sorted[lo - 1]!) / 2;
}

import { addAutocovariance } from "./autocovariance.ts";
import { type ChainMatrix, type Draws, chainOf, mapMatrix, shouldReturnNA } from "./draws.ts";
import { mean, variance, varianceAbout } from "./moments.ts";
import { ParameterDraws } from "./parameter-draws.ts";
import { splitChains } from "./split-chains.ts";

/**
 * Effective sample size of a chain matrix (chains already split if wanted),
 * following posterior's `.ess`: FFT autocovariances averaged over chains,
 * Geyer's initial positive sequence, then his initial monotone sequence, the
 * "improved" antithetic-aware tail term, and a cap of N·log10(N).
 * Returns NaN (NA) for fewer than 3 draws per chain, non-finite or constant input.
 */
export function essOfMatrix(m: ChainMatrix): number {
  const chains = m.chains;
  const n = m.iterations;
  if (n < 3 || shouldReturnNA(m.values)) return NaN;

  const acovMeans = new Float64Array(n);
  const chainMeans = new Float64Array(chains);
  for (let c = 0; c < chains; c++) {
    const chain = chainOf(m, c);
    const chainMean = mean(chain);
    // Summed into acovMeans chain by chain, as the separate autocovariances were.
    addAutocovariance(chain, chainMean, varianceAbout(chain, chainMean), acovMeans);
    chainMeans[c] = chainMean;
  }
  for (let t = 0; t < n; t++) acovMeans[t] = acovMeans[t]! / chains;

  const meanVar = (acovMeans[0]! * n) / (n - 1);
  let varPlus = (meanVar * (n - 1)) / n;
  if (chains > 1) varPlus += variance(chainMeans);

  // rho[t] is the autocorrelation estimate at lag t.
  const rho = new Float64Array(n);
  const rhoAt = (t: number): number => 1 - (meanVar - acovMeans[t]!) / varPlus;

  // Geyer's initial positive sequence: sum lag pairs while their sum stays positive.
  let t = 0;
  let rhoEven = 1;
  let rhoOdd = rhoAt(1);
  rho[0] = rhoEven;
  rho[1] = rhoOdd;
  while (t < n - 5 && !Number.isNaN(rhoEven + rhoOdd) && rhoEven + rhoOdd > 0) {
    t += 2;
    rhoEven = rhoAt(t);
    rhoOdd = rhoAt(t + 1);
    if (rhoEven + rhoOdd >= 0) {
      rho[t] = rhoEven;
      rho[t + 1] = rhoOdd;
    }
  }
  const maxT = t;
  // The last positive even lag enters the improved estimate below.
  if (rhoEven > 0) rho[maxT] = rhoEven;

  // Geyer's initial monotone sequence: pair sums may not increase.
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t]! + rho[t + 1]! > rho[t - 2]! + rho[t - 1]!) {
      rho[t] = (rho[t - 2]! + rho[t - 1]!) / 2;
      rho[t + 1] = rho[t]!;
    }
  }

  const total = chains * n;
  // R sums rho_hat_t[1:max_t]; when max_t is 0 that R range is c(1, 0), i.e. just lag 0.
  let sum = 0;
  if (maxT === 0) sum = rho[0]!;
  else for (let k = 0; k < maxT; k++) sum += rho[k]!;
  // Improved estimate (reduces variance in the antithetic case).
  let tau = -1 + 2 * sum + rho[maxT]!;
  // Cap the ESS at N·log10(N) to avoid unstable estimates for antithetic chains.
  const tauBound = 1 / Math.log10(total);
  if (tau < tauBound) tau = tauBound;
  return total / tau;
}

/** Basic split-chain ESS without rank normalization (posterior's `ess_basic`, = `ess_mean`). */
export function essBasic(draws: Draws): number {
  return essBasicOf(ParameterDraws.of(draws));
}

/** Bulk ESS: split-chain ESS of rank-normalized draws. */
export function essBulk(draws: Draws): number {
  return essBulkOf(ParameterDraws.of(draws));
}

/** ESS of the indicator draws <= the `prob` quantile (posterior's `ess_quantile`). */
export function essQuantile(draws: Draws, prob: number): number {
  return essQuantileOf(ParameterDraws.of(draws), prob);
}

/** ESS of the indicator of a quantile for a chain matrix. */
export function essQuantileOfMatrix(m: ChainMatrix, prob: number): number {
  return essQuantileOf(new ParameterDraws(m), prob);
}

/** Tail ESS: the smaller of the quantile ESS at 5% and 95%. */
export function essTail(draws: Draws): number {
  const p = ParameterDraws.of(draws);
  return essTailFrom(essQuantileOf(p, 0.05), essQuantileOf(p, 0.95));
}

/** ESS for the mean: split-chain ESS of the raw draws. */
export function essMean(draws: Draws): number {
  return essBasic(draws);
}

/** `essBasic` of one parameter's draws. */
export function essBasicOf(p: ParameterDraws): number {
  return essOfMatrix(p.split());
}

/** `essBulk` of one parameter's draws. */
export function essBulkOf(p: ParameterDraws): number {
  return p.hasNaN() ? NaN : essOfMatrix(p.bulkNormalized());
}

/** `essQuantile` of one parameter's draws. */
export function essQuantileOf(p: ParameterDraws, prob: number): number {
  if (p.returnsNA()) return NaN;
  const len = p.matrix.values.length;
  // posterior moves p = 1 just inside so that the indicator is not constant.
  const q = p.quantile(prob === 1 ? (len - 0.5) / len : prob);
  return essOfMatrix(splitChains(mapMatrix(p.matrix, (x) => (x <= q ? 1 : 0))));
}

/** Tail ESS from the quantile ESS at 5% and 95%. */
export function essTailFrom(q05: number, q95: number): number {
  if (Number.isNaN(q05) || Number.isNaN(q95)) return NaN;
  return Math.min(q05, q95);
}

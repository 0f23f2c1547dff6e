import { autocovariance } from "./autocovariance.ts";
import { type ChainMatrix, type Draws, chainOf, mapMatrix, shouldReturnNA, toChainMatrix } from "./draws.ts";
import { mean, variance } from "./moments.ts";
import { quantile } from "./quantile.ts";
import { rankNormalize } from "./rank-normalize.ts";
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
    const acov = autocovariance(chain);
    for (let t = 0; t < n; t++) acovMeans[t] = acovMeans[t]! + acov[t]!;
    chainMeans[c] = mean(chain);
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

function hasNaN(m: ChainMatrix): boolean {
  for (let i = 0; i < m.values.length; i++) if (Number.isNaN(m.values[i]!)) return true;
  return false;
}

/** Basic split-chain ESS without rank normalization (posterior's `ess_basic`, = `ess_mean`). */
export function essBasic(draws: Draws): number {
  return essOfMatrix(splitChains(toChainMatrix(draws)));
}

/** Bulk ESS: split-chain ESS of rank-normalized draws. */
export function essBulk(draws: Draws): number {
  const m = toChainMatrix(draws);
  if (hasNaN(m)) return NaN;
  return essOfMatrix(rankNormalize(splitChains(m)));
}

/** ESS of the indicator draws <= the `prob` quantile (posterior's `ess_quantile`). */
export function essQuantile(draws: Draws, prob: number): number {
  return essQuantileOfMatrix(toChainMatrix(draws), prob);
}

/** ESS of the indicator of a quantile for a chain matrix. */
export function essQuantileOfMatrix(m: ChainMatrix, prob: number): number {
  if (shouldReturnNA(m.values)) return NaN;
  let p = prob;
  if (p === 1) {
    // posterior moves p = 1 just inside so that the indicator is not constant.
    const len = m.values.length;
    p = (len - 0.5) / len;
  }
  const q = quantile(m.values, p);
  return essOfMatrix(splitChains(mapMatrix(m, (x) => (x <= q ? 1 : 0))));
}

/** Tail ESS: the smaller of the quantile ESS at 5% and 95%. */
export function essTail(draws: Draws): number {
  const m = toChainMatrix(draws);
  const q05 = essQuantileOfMatrix(m, 0.05);
  const q95 = essQuantileOfMatrix(m, 0.95);
  if (Number.isNaN(q05) || Number.isNaN(q95)) return NaN;
  return Math.min(q05, q95);
}

/** ESS for the mean: split-chain ESS of the raw draws. */
export function essMean(draws: Draws): number {
  return essBasic(draws);
}

/**
 * loo's relative efficiency of the draws of exp(log-likelihood) of one observation:
 * ESS / S with loo 2.5.1's `ess_rfun`.
 *
 * That ESS is not the project's essOfMatrix (posterior's): it is computed over the chains as they
 * are (not split), and loo's `autocovariance` divides the FFT's sums by 2·N² while the FFT ran over
 * 2·M points, M being the next 2·3·5-smooth size ≥ N — so every autocovariance is M/N times the
 * "biased" estimate, while the between-chain variance is not. The two agree only when N is
 * 2·3·5-smooth. It also keeps loo's answers for constant draws (NaN autocorrelations end
 * the sum at once, giving ESS = S/2) where essOfMatrix says NaN.
 */
import { autocovariance } from "../diagnostics/autocovariance.ts";
import { toChainMatrix, chainOf, type Draws } from "../diagnostics/draws.ts";
import { mean, variance } from "../diagnostics/moments.ts";

/** Relative efficiency (ESS / total draws) of one quantity's draws [chain][draw], as loo's relative_eff. */
export function relativeEff(draws: Draws): number {
  const m = toChainMatrix(draws);
  return looEss(m.chains, m.iterations, (c) => chainOf(m, c)) / (m.chains * m.iterations);
}

/** loo's `fft_next_good_size`: the smallest N' ≥ N whose only prime factors are 2, 3 and 5 (2 for N ≤ 2). */
export function fftNextGoodSize(n: number): number {
  if (n <= 2) return 2;
  for (let k = n; ; k++) {
    let m = k;
    while (m % 2 === 0) m /= 2;
    while (m % 3 === 0) m /= 3;
    while (m % 5 === 0) m /= 5;
    if (m <= 1) return k;
  }
}

// ess_rfun, line by line; R's 1-based rho_hat_t[t + 1] is rho[t] here.
function looEss(chains: number, n: number, chain: (c: number) => Float64Array): number {
  const scale = fftNextGoodSize(n) / n;
  const acovMean = new Float64Array(n);
  const chainMeans = new Float64Array(chains);
  for (let c = 0; c < chains; c++) {
    const x = chain(c);
    const acov = autocovariance(x);
    for (let t = 0; t < n; t++) acovMean[t] = acovMean[t]! + acov[t]! * scale;
    chainMeans[c] = mean(x);
  }
  for (let t = 0; t < n; t++) acovMean[t] = acovMean[t]! / chains;
  const meanVar = (acovMean[0]! * n) / (n - 1);
  let varPlus = (meanVar * (n - 1)) / n;
  if (chains > 1) varPlus += variance(chainMeans);
  const rhoAt = (t: number): number => 1 - (meanVar - acovMean[t]!) / varPlus;

  const rho = new Float64Array(n);
  let t = 0;
  let rhoEven = 1;
  rho[0] = rhoEven;
  let rhoOdd = rhoAt(1);
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
  if (rhoEven > 0) rho[maxT] = rhoEven;
  t = 0;
  while (t <= maxT - 4) {
    t += 2;
    if (rho[t]! + rho[t + 1]! > rho[t - 2]! + rho[t - 1]!) {
      rho[t] = (rho[t - 2]! + rho[t - 1]!) / 2;
      rho[t + 1] = rho[t]!;
    }
  }
  const total = chains * n;
  // R's rho_hat_t[1:max_t] is c(rho[0]) when max_t is 0 (1:0 is c(1, 0), and index 0 selects nothing).
  let sum = 0;
  if (maxT === 0) sum = rho[0]!;
  else for (let k = 0; k < maxT; k++) sum += rho[k]!;
  const tau = Math.max(-1 + 2 * sum + rho[maxT]!, 1 / Math.log10(total));
  return total / tau;
}

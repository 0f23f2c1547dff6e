import { addAutocovarianceSteps } from "./autocovariance.ts";
import { type ChainMatrix, type Draws, chainOf, mapMatrix, shouldReturnNA } from "./draws.ts";
import { nextPowerOfTwo } from "./fft.ts";
import { mean, variance, varianceAbout } from "./moments.ts";
import { ParameterDraws } from "./parameter-draws.ts";
import { splitChains } from "./split-chains.ts";
import { finish, made } from "./steps.ts";

/** Series j of a matrix, made in steps (read from a file, ranked): a buffer that the next call may reuse. */
export type SeriesSteps = (j: number) => Generator<void, Float64Array, void>;

// A function of series made at once, as steps.
function stepsOf(series: (j: number) => Float64Array): SeriesSteps {
  return (j) => made(series(j));
}

/**
 * Effective sample size of a chain matrix (chains already split if wanted),
 * following posterior's `.ess`: FFT autocovariances averaged over chains,
 * Geyer's initial positive sequence, then his initial monotone sequence, the
 * "improved" antithetic-aware tail term, and a cap of N·log10(N).
 * Returns NaN (NA) for fewer than 3 draws per chain, non-finite or constant input.
 */
export function essOfMatrix(m: ChainMatrix): number {
  if (m.iterations < 3 || shouldReturnNA(m.values)) return NaN;
  return essOfSeries(m.chains, m.iterations, (c) => chainOf(m, c));
}

/**
 * `essOfMatrix` of `count` series of `n` values each, made by `series(j)` when asked for (it may
 * return one buffer filled anew each time, and is called again for a second pass when the first
 * one's lags were too few), so that a summary holds one series at a time.
 */
export function essOfSeries(count: number, n: number, series: (j: number) => Float64Array): number {
  return finish(essOfSeriesSteps(count, n, stepsOf(series)));
}

/** `essOfSeries` in steps: the generator yields while each series is made and its autocovariances computed. */
export function* essOfSeriesSteps(count: number, n: number, series: SeriesSteps): Generator<void, number, void> {
  if (n < 3) return NaN;
  return yield* essAfterPassSteps(yield* seriesPassSteps(count, n, series, lagsFor(n)), series);
}

/** The ESS of the series that `pass` read with `lagsFor(n)` lags: NaN (NA) as essOfMatrix says, else from its lags or, when Geyer's sequences read further, from a second pass with all of them. */
export function essAfterPass(pass: SeriesPass, series: (j: number) => Float64Array): number {
  return finish(essAfterPassSteps(pass, stepsOf(series)));
}

/** `essAfterPass` in steps: the generator yields inside each series a second pass reads. */
export function* essAfterPassSteps(pass: SeriesPass, series: SeriesSteps): Generator<void, number, void> {
  if (pass.n < 3 || pass.returnsNA) return NaN;
  return essFromPass(pass) ?? essFromPass(yield* seriesPassSteps(pass.count, pass.n, series, pass.n))!;
}

/** What one pass over a matrix's series gives: each series' mean and variance, whether posterior says NA, and (when lags were asked for) the chains' mean autocovariance. */
export interface SeriesPass {
  readonly count: number;
  readonly n: number;
  readonly means: Float64Array;
  readonly variances: Float64Array;
  readonly returnsNA: boolean;
  /** Summed autocovariances at lags 0..lags-1 (divided by `count` in essFromPass). */
  readonly acov: Float64Array;
}

/** Reads every series once: means, variances, posterior's NA test over all values and, with `lags` > 0, the autocovariances at lags below it. */
export function seriesPass(count: number, n: number, series: (j: number) => Float64Array, lags: number): SeriesPass {
  return finish(seriesPassSteps(count, n, stepsOf(series), lags));
}

/** `seriesPass` in steps: the generator yields while each series is made and inside its transforms, so that a caller can stop at any moment (a split chain of millions of draws takes a transform of as many points). */
export function* seriesPassSteps(count: number, n: number, series: SeriesSteps, lags: number): Generator<void, SeriesPass, void> {
  const means = new Float64Array(count);
  const variances = new Float64Array(count);
  const acov = new Float64Array(lags);
  const na = new NaTest();
  for (let j = 0; j < count; j++) {
    const x = yield* series(j);
    na.add(x);
    const m = mean(x);
    const v = varianceAbout(x, m);
    means[j] = m;
    variances[j] = v;
    // Summed chain by chain, as the separate autocovariances were.
    if (lags > 0) yield* addAutocovarianceSteps(x, m, v, acov);
    yield;
  }
  return { count, n, means, variances, returnsNA: na.returnsNA(), acov };
}

/** posterior's `should_return_NA` over values given in parts (`shouldReturnNA` of them all). */
export class NaTest {
  private min = Infinity;
  private max = -Infinity;
  private nonFinite = false;

  /** Takes more values. */
  add(values: ArrayLike<number>): void {
    for (let i = 0; i < values.length && !this.nonFinite; i++) {
      const v = values[i]!;
      if (!Number.isFinite(v)) this.nonFinite = true;
      if (v < this.min) this.min = v;
      if (v > this.max) this.max = v;
    }
  }

  /** True when a value was non-finite or all were equal to within machine epsilon. */
  returnsNA(): boolean {
    return this.nonFinite || Math.abs(this.max - this.min) < Number.EPSILON;
  }
}

/**
 * The lags a first pass computes (0 below 3 draws, where there is no ESS): what fits in n and a
 * quarter more padded to a power of two, usually far more than Geyer's sequences read, with a
 * transform of at most 2.5·n points instead of 2n rounded up to 4n.
 */
export function lagsFor(n: number): number {
  return n < 3 ? 0 : Math.min(n, nextPowerOfTwo(Math.ceil(1.25 * n)) - n + 1);
}

/** The ESS from a pass's autocovariances (Geyer's sequences); null when they read a lag the pass did not compute. */
export function essFromPass(pass: SeriesPass): number | null {
  const { count: chains, n, acov } = pass;
  const lags = acov.length;
  const acovMeans = new Float64Array(lags);
  for (let t = 0; t < lags; t++) acovMeans[t] = acov[t]! / chains;

  const meanVar = (acovMeans[0]! * n) / (n - 1);
  let varPlus = (meanVar * (n - 1)) / n;
  if (chains > 1) varPlus += variance(pass.means);

  const rhoAt = (t: number): number => 1 - (meanVar - acovMeans[t]!) / varPlus;

  // Geyer's initial positive sequence: sum lag pairs while their sum stays positive.
  let t = 0;
  let rhoEven = 1;
  let rhoOdd = rhoAt(1);
  // rho[t] is the autocorrelation estimate at lag t (0 where not set), grown as Geyer's sequence
  // reads on: it usually stops within a few hundred lags of millions.
  let rho = new Float64Array(Math.min(lags, 1024));
  rho[0] = rhoEven;
  rho[1] = rhoOdd;
  while (t < n - 5 && !Number.isNaN(rhoEven + rhoOdd) && rhoEven + rhoOdd > 0) {
    t += 2;
    if (t + 1 >= lags) return null;
    if (t + 1 >= rho.length) {
      const longer = new Float64Array(Math.min(lags, 2 * rho.length));
      longer.set(rho);
      rho = longer;
    }
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

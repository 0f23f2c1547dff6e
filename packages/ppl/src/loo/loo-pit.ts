/**
 * LOO-PIT: the probability integral transform of each observation under its leave-one-out
 * predictive distribution, estimated from posterior predictive draws weighted by the PSIS
 * weights of that observation (Gabry et al. 2019; ArviZ's loo_pit, bayesplot's ppc_loo_pit).
 * For a well-calibrated model the values are uniform on (0, 1): a pile-up near 0 and 1 says the
 * predictive distributions are too narrow, a hump in the middle that they are too wide.
 *
 * Each value is P(y_rep < y) + u · P(y_rep = y) under the weights, with u uniform on (0, 1) from
 * a seeded Philox stream: for continuous data the second term is zero, for discrete data it is
 * the randomized PIT, which is uniform where the plain P(y_rep ≤ y) is not.
 */
import type { Draws } from "../diagnostics/draws.ts";
import { toChainMatrix } from "../diagnostics/draws.ts";
import { philoxRng } from "../random/index.ts";
import { logSumExp } from "./log-sum-exp.ts";
import { psis } from "./psis.ts";
import { relativeEff } from "./relative-eff.ts";

/** LOO-PIT values and the Pareto k of the weights behind each. */
export interface LooPitResult {
  /** One value in [0, 1] per observation. */
  readonly pit: Float64Array;
  /** Pareto k of each observation's importance weights (as loo's pareto_k). */
  readonly paretoK: Float64Array;
}

/** Options of looPit. */
export interface LooPitOptions {
  /** Seed of the uniforms that break ties of discrete data (default 1). */
  readonly seed?: number;
  /** One r_eff per observation (default: relativeEff of exp(log-likelihood), as loo computes it). */
  readonly rEff?: ArrayLike<number>;
}

/**
 * LOO-PIT of observations `y` from their log-likelihood and their predictive draws, both
 * [observation][chain][draw] over the same draws.
 */
export function looPit(logLik: readonly Draws[], yRep: readonly Draws[], y: ArrayLike<number>, opts: LooPitOptions = {}): LooPitResult {
  const n = y.length;
  if (logLik.length !== n || yRep.length !== n) {
    throw new Error(`looPit: ${n} observations, ${logLik.length} log-likelihood entries and ${yRep.length} predictive entries; give one of each per observation`);
  }
  const rng = philoxRng(opts.seed ?? 1);
  const pit = new Float64Array(n);
  const paretoK = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const ll = toChainMatrix(logLik[i]!).values;
    const rep = toChainMatrix(yRep[i]!).values;
    if (rep.length !== ll.length) throw new Error(`looPit: observation ${i + 1} has ${ll.length} log-likelihood draws and ${rep.length} predictive draws; they must be the same draws`);
    const rEff = opts.rEff !== undefined ? opts.rEff[i]! : relativeEff(logLik[i]!.map((chain) => Float64Array.from(chain, Math.exp)));
    const logRatios = Float64Array.from(ll, (v) => -v);
    const { logWeights, paretoK: k } = psis(logRatios, rEff);
    const norm = logSumExp(logWeights);
    let below = 0;
    let equal = 0;
    for (let s = 0; s < rep.length; s++) {
      const w = Math.exp(logWeights[s]! - norm);
      if (rep[s]! < y[i]!) below += w;
      else if (rep[s]! === y[i]!) equal += w;
    }
    // Drawn for every observation, ties or not, so that observation i's value does not depend on the others' ties.
    const u = rng.uniform();
    pit[i] = Math.min(1, Math.max(0, below + u * equal));
    paretoK[i] = k;
  }
  return { pit, paretoK };
}

/**
 * Half-width of the simultaneous band of the ECDF of n uniform values at level 1 - alpha
 * (Dvoretzky–Kiefer–Wolfowitz with Massart's constant): with probability at least 1 - alpha the
 * ECDF stays within this distance of the uniform CDF everywhere.
 */
export function dkwBand(n: number, alpha = 0.05): number {
  return Math.sqrt(Math.log(2 / alpha) / (2 * n));
}

/** The Kolmogorov–Smirnov distance of values in [0, 1] from the uniform distribution: max |ECDF(u) - u|. */
export function ksUniform(values: ArrayLike<number>): number {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  let d = 0;
  for (let i = 0; i < n; i++) d = Math.max(d, (i + 1) / n - sorted[i]!, sorted[i]! - i / n);
  return d;
}

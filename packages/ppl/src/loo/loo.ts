/**
 * PSIS-LOO: leave-one-out cross-validation estimated by Pareto smoothed importance sampling from
 * the pointwise log-likelihood of posterior draws (Vehtari, Gelman & Gabry 2017), computed as loo
 * 2.5.1's `loo(ll, r_eff = relative_eff(exp(ll)))`.
 */
import type { Draws } from "../diagnostics/draws.ts";
import { toChainMatrix } from "../diagnostics/draws.ts";
import { variance } from "../diagnostics/moments.ts";
import { logSumExp } from "./log-sum-exp.ts";
import { paretoKCounts, paretoKWarnings, type ParetoKCounts } from "./pareto-k.ts";
import { psis } from "./psis.ts";
import { relativeEff } from "./relative-eff.ts";

/** Pointwise log-likelihood: one entry per observation, each that observation's draws [chain][draw]. */
export type PointwiseLogLik = ReadonlyArray<Draws>;

/** The per-observation terms of PSIS-LOO. */
export interface LooPointwise {
  readonly elpd_loo: Float64Array;
  readonly p_loo: Float64Array;
  readonly looic: Float64Array;
}

/** PSIS-LOO estimates (sums over observations with their standard errors) and diagnostics, named as loo names them. */
export interface LooResult {
  readonly elpd_loo: number;
  readonly se_elpd_loo: number;
  readonly p_loo: number;
  readonly se_p_loo: number;
  readonly looic: number;
  readonly se_looic: number;
  readonly pointwise: LooPointwise;
  /** Pareto k of each observation's importance weights. */
  readonly pareto_k: Float64Array;
  /** PSIS effective sample size of each observation's weights (loo's n_eff, r_eff-adjusted). */
  readonly n_eff: Float64Array;
  /** Relative efficiency of each observation's exp(log-likelihood) draws. */
  readonly r_eff: Float64Array;
  readonly pareto_k_counts: ParetoKCounts;
  /** loo's k warnings, one line each; empty when every k ≤ 0.7. */
  readonly warnings: readonly string[];
  readonly observations: number;
  /** Draws over all chains. */
  readonly draws: number;
}

/** Options of loo: relative efficiencies given instead of computed from the draws. */
export interface LooOptions {
  /** One r_eff per observation (default: relativeEff of exp(log-likelihood), as loo recommends). */
  readonly rEff?: ArrayLike<number>;
}

/** PSIS-LOO from the pointwise log-likelihood of every observation ([observation][chain][draw]). */
export function loo(logLik: PointwiseLogLik, opts: LooOptions = {}): LooResult {
  const n = logLik.length;
  if (n === 0) throw new Error("loo: needs the log-likelihood of at least one observation");
  if (opts.rEff !== undefined && opts.rEff.length !== n) throw new Error(`loo: rEff has ${opts.rEff.length} values for ${n} observations; give one per observation`);
  const elpd = new Float64Array(n);
  const pLoo = new Float64Array(n);
  const looic = new Float64Array(n);
  const paretoK = new Float64Array(n);
  const nEff = new Float64Array(n);
  const rEffs = new Float64Array(n);
  let draws = -1;
  for (let i = 0; i < n; i++) {
    const m = toChainMatrix(logLik[i]!);
    const ll = m.values;
    const s = ll.length;
    if (draws === -1) draws = s;
    else if (s !== draws) throw new Error(`loo: observation ${i + 1} has ${s} draws, observation 1 has ${draws}; every observation needs the same draws`);
    for (let j = 0; j < s; j++) {
      if (!Number.isFinite(ll[j]!)) throw new Error(`loo: the log-likelihood of observation ${i + 1} is not finite at draw ${j + 1} (${ll[j]}); every value must be finite`);
    }
    const rEff = opts.rEff !== undefined ? opts.rEff[i]! : relativeEff(logLik[i]!.map((chain) => Float64Array.from(chain, Math.exp)));
    rEffs[i] = rEff;
    const logRatios = new Float64Array(s);
    for (let j = 0; j < s; j++) logRatios[j] = -ll[j]!;
    const { logWeights, paretoK: k } = psis(logRatios, rEff);
    const norm = logSumExp(logWeights);
    const terms = new Float64Array(s);
    let sumW2 = 0;
    for (let j = 0; j < s; j++) {
      const lw = logWeights[j]! - norm;
      terms[j] = ll[j]! + lw;
      sumW2 += Math.exp(2 * lw);
    }
    elpd[i] = logSumExp(terms);
    pLoo[i] = logSumExp(ll) - Math.log(s) - elpd[i]!;
    looic[i] = -2 * elpd[i]!;
    paretoK[i] = k;
    nEff[i] = (1 / sumW2) * rEff;
  }
  const [elpdLoo, seElpd] = estimate(elpd);
  const [p, seP] = estimate(pLoo);
  const [ic, seIc] = estimate(looic);
  return {
    elpd_loo: elpdLoo,
    se_elpd_loo: seElpd,
    p_loo: p,
    se_p_loo: seP,
    looic: ic,
    se_looic: seIc,
    pointwise: { elpd_loo: elpd, p_loo: pLoo, looic },
    pareto_k: paretoK,
    n_eff: nEff,
    r_eff: rEffs,
    pareto_k_counts: paretoKCounts(paretoK),
    warnings: paretoKWarnings(paretoK),
    observations: n,
    draws,
  };
}

// loo's table_of_estimates: the sum, and sqrt(N · var) as its standard error (NaN for one observation, as R's NA).
function estimate(x: Float64Array): [number, number] {
  let s = 0;
  for (const v of x) s += v;
  return [s, Math.sqrt(x.length * variance(x))];
}

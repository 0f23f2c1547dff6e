import type { SamplerDiagnostics } from "./sampler.ts";
import type { ParameterSummary } from "./parameter-summary.ts";

/** The usual thresholds for flagging a run. */
export const THRESHOLDS = {
  /** R-hat above this suggests the chains have not mixed. */
  rhat: 1.01,
  /** Bulk- and tail-ESS below this many per chain are too small for reliable estimates ... */
  essPerChain: 100,
  /**
   * ... up to this many in all: the 400 that Vehtari et al. (2021) and posterior recommend (100 per
   * chain for their 4 chains), whatever the chains; 256 short chains need not reach 25,600.
   */
  essTotal: 400,
  /** E-BFMI below this suggests the momentum resampling explores the energy poorly. */
  ebfmi: 0.3,
} as const;

/** Chains beyond which per-chain diagnostics are counted over the chains instead of listed (one line, one warning). */
export const LISTED_CHAINS = 16;

/** The bulk- and tail-ESS below which a parameter is flagged: 100 per chain, at most 400 in all. */
export function minimumEss(chains: number): number {
  return Math.min(THRESHOLDS.essPerChain * chains, THRESHOLDS.essTotal);
}

/** The ESS threshold's rule in words, for messages. */
export const ESS_RULE = `${THRESHOLDS.essPerChain} per chain, at most ${THRESHOLDS.essTotal} in all`;

/** Kind of problem a warning reports. */
export type WarningKind = "nonfinite" | "rhat" | "ess_bulk" | "ess_tail" | "divergences" | "treedepth" | "ebfmi";

/** One diagnostic warning: machine-readable fields plus a message for people. */
export interface DiagnosticWarning {
  readonly kind: WarningKind;
  /** Parameter name for per-parameter warnings. */
  readonly parameter?: string;
  /** 0-based chain index for per-chain warnings (for a warning counted over the chains, the worst chain). */
  readonly chain?: number;
  /** For a warning counted over many chains (E-BFMI beyond LISTED_CHAINS): in how many chains it holds. */
  readonly chains?: number;
  /** The offending value (a count for divergences and tree depth hits). */
  readonly value: number;
  /** The threshold it was compared against. */
  readonly threshold: number;
  readonly message: string;
}

function fmt(x: number): string {
  return Number.isInteger(x) ? String(x) : x.toPrecision(4);
}

/** Warnings for R-hat and ESS of each parameter summary, given the number of chains. */
export function parameterWarnings(summaries: readonly ParameterSummary[], chains: number): DiagnosticWarning[] {
  const out: DiagnosticWarning[] = [];
  const minEss = minimumEss(chains);
  for (const s of summaries) {
    if (s.rhat > THRESHOLDS.rhat) {
      out.push({
        kind: "rhat",
        parameter: s.name,
        value: s.rhat,
        threshold: THRESHOLDS.rhat,
        message: `R-hat of ${s.name} is ${fmt(s.rhat)} (> ${THRESHOLDS.rhat}): the chains have not mixed; run longer or reparameterize.`,
      });
    }
    for (const kind of ["ess_bulk", "ess_tail"] as const) {
      const ess = s[kind];
      if (ess < minEss) {
        const label = kind === "ess_bulk" ? "Bulk-ESS" : "Tail-ESS";
        out.push({
          kind,
          parameter: s.name,
          value: ess,
          threshold: minEss,
          message: `${label} of ${s.name} is ${fmt(ess)} (< ${minEss}: ${ESS_RULE}): estimates of its ${kind === "ess_bulk" ? "mean and median" : "tail quantiles"} may be unreliable; run more draws.`,
        });
      }
    }
  }
  return out;
}

/**
 * Warnings for parameters with NaN or infinite draws: every statistic of such a parameter is NA,
 * which the table alone would not explain. `draws` is name → [chain][draw].
 */
export function nonFiniteWarnings(draws: readonly (readonly [string, readonly ArrayLike<number>[]])[]): DiagnosticWarning[] {
  const out: DiagnosticWarning[] = [];
  for (const [name, chains] of draws) {
    let bad = 0;
    let total = 0;
    let nan = 0;
    for (const c of chains) {
      total += c.length;
      for (let i = 0; i < c.length; i++) {
        const v = c[i]!;
        if (!Number.isFinite(v)) {
          bad++;
          if (Number.isNaN(v)) nan++;
        }
      }
    }
    const w = nonFiniteWarning(name, { bad, nan, total });
    if (w !== null) out.push(w);
  }
  return out;
}

/** The warning for one parameter of whose `total` draws `bad` are non-finite, `nan` of them NaN; null when none is. */
export function nonFiniteWarning(name: string, count: { readonly bad: number; readonly nan: number; readonly total: number }): DiagnosticWarning | null {
  const { bad, nan, total } = count;
  if (bad === 0) return null;
  const what = nan === bad ? "NaN" : nan === 0 ? "infinite" : "NaN or infinite";
  return {
    kind: "nonfinite",
    parameter: name,
    value: bad,
    threshold: 0,
    message: `${bad} of ${total} draws of ${name} are ${what}, so its statistics are NA: check the expression that computes it (a log or division of a value that reaches 0, an overflow) or its bounds.`,
  };
}

/** Warnings for divergences, tree-depth saturation and low E-BFMI. */
export function samplerWarnings(d: SamplerDiagnostics): DiagnosticWarning[] {
  const out: DiagnosticWarning[] = [];
  if (d.divergences > 0) {
    out.push({
      kind: "divergences",
      value: d.divergences,
      threshold: 0,
      message: `${d.divergences} of ${d.draws} transitions ended with a divergence: the posterior may be biased; increase adapt-delta or reparameterize.`,
    });
  }
  if (d.treeDepthHits > 0) {
    out.push({
      kind: "treedepth",
      value: d.treeDepthHits,
      threshold: d.maxTreeDepth,
      message: `${d.treeDepthHits} of ${d.draws} transitions hit the maximum tree depth of ${d.maxTreeDepth}: sampling is inefficient; increase max-depth or reparameterize.`,
    });
  }
  if (d.ebfmi.length > LISTED_CHAINS) {
    const w = ebfmiCountWarning(d.ebfmi);
    if (w !== null) out.push(w);
    return out;
  }
  d.ebfmi.forEach((value, chain) => {
    if (value < THRESHOLDS.ebfmi) {
      out.push({
        kind: "ebfmi",
        chain,
        value,
        threshold: THRESHOLDS.ebfmi,
        message: `E-BFMI of chain ${chain + 1} is ${fmt(value)} (< ${THRESHOLDS.ebfmi}): the sampler may not explore the posterior's energy well; reparameterize.`,
      });
    }
  });
  return out;
}

// Beyond LISTED_CHAINS chains, one warning: in how many chains E-BFMI is low, the lowest and its chain.
function ebfmiCountWarning(ebfmi: readonly number[]): DiagnosticWarning | null {
  let below = 0;
  let low = -1;
  ebfmi.forEach((value, chain) => {
    if (!(value < THRESHOLDS.ebfmi)) return;
    below++;
    if (low < 0 || value < ebfmi[low]!) low = chain;
  });
  if (below === 0) return null;
  const value = ebfmi[low]!;
  return {
    kind: "ebfmi",
    chain: low,
    chains: below,
    value,
    threshold: THRESHOLDS.ebfmi,
    message: `E-BFMI is below ${THRESHOLDS.ebfmi} in ${below} of ${ebfmi.length} chains (lowest ${fmt(value)}, chain ${low + 1}): the sampler may not explore the posterior's energy well; reparameterize.`,
  };
}

import { type Draws, toChainMatrix } from "./draws.ts";
import { essBasic, essBulk, essTail } from "./ess.ts";
import { mad } from "./mad.ts";
import { mcseMean, mcseQuantile, mcseSd } from "./mcse.ts";
import { mean, sd } from "./moments.ts";
import { quantileSorted, sortedCopy } from "./quantile.ts";
import { rhat, rhatBasic } from "./rhat.ts";
import { type SamplerDiagnostics, type SamplerDraws, samplerDiagnostics } from "./sampler.ts";
import { type DiagnosticWarning, nonFiniteWarnings, parameterWarnings, samplerWarnings } from "./warnings.ts";

/** All statistics of one parameter; NaN stands for posterior's NA. */
export interface ParameterSummary {
  readonly name: string;
  readonly mean: number;
  readonly sd: number;
  readonly median: number;
  readonly mad: number;
  readonly q5: number;
  readonly q50: number;
  readonly q95: number;
  readonly rhat: number;
  readonly rhat_basic: number;
  readonly ess_bulk: number;
  readonly ess_tail: number;
  readonly ess_basic: number;
  readonly mcse_mean: number;
  readonly mcse_sd: number;
  readonly mcse_q5: number;
  readonly mcse_q95: number;
}

/** Summary of a whole run: per-parameter statistics, sampler diagnostics, warnings. */
export interface Summary {
  readonly chains: number;
  readonly drawsPerChain: number;
  readonly parameters: ParameterSummary[];
  readonly sampler?: SamplerDiagnostics;
  readonly warnings: DiagnosticWarning[];
}

/** Options for `summarize`. */
export interface SummarizeOptions {
  /** Sampler columns for divergence, tree-depth and E-BFMI diagnostics. */
  readonly sampler?: SamplerDraws;
  /** Maximum tree depth the sampler ran with (default 10, Stan's default). */
  readonly maxTreeDepth?: number;
}

/** Every statistic of one parameter's draws ([chain][draw]). */
export function summarizeParameter(name: string, draws: Draws): ParameterSummary {
  const pooled = toChainMatrix(draws).values;
  const hasNaN = pooled.some((v) => Number.isNaN(v));
  const sorted = sortedCopy(pooled);
  const q = (p: number): number => (hasNaN ? NaN : quantileSorted(sorted, p));
  return {
    name,
    mean: mean(pooled),
    sd: sd(pooled),
    median: q(0.5),
    mad: hasNaN ? NaN : mad(pooled),
    q5: q(0.05),
    q50: q(0.5),
    q95: q(0.95),
    rhat: rhat(draws),
    rhat_basic: rhatBasic(draws),
    ess_bulk: essBulk(draws),
    ess_tail: essTail(draws),
    ess_basic: essBasic(draws),
    mcse_mean: mcseMean(draws),
    mcse_sd: mcseSd(draws),
    mcse_q5: mcseQuantile(draws, 0.05),
    mcse_q95: mcseQuantile(draws, 0.95),
  };
}

/**
 * Summarizes every parameter (name → [chain][draw]) and, when sampler columns
 * are given, the sampler; collects warnings at the usual thresholds.
 */
export function summarize(
  parameters: Readonly<Record<string, Draws>> | ReadonlyMap<string, Draws>,
  options: SummarizeOptions = {},
): Summary {
  const entries = parameters instanceof Map ? [...parameters.entries()] : Object.entries(parameters);
  const summaries = entries.map(([name, draws]) => summarizeParameter(name, draws));
  const first = entries[0]?.[1];
  const chains = first?.length ?? options.sampler?.energy.length ?? 0;
  const drawsPerChain = first?.[0]?.length ?? 0;
  const warnings = [...nonFiniteWarnings(entries), ...parameterWarnings(summaries, chains)];
  if (options.sampler === undefined) return { chains, drawsPerChain, parameters: summaries, warnings };
  const sampler = samplerDiagnostics(options.sampler, options.maxTreeDepth ?? 10);
  return { chains, drawsPerChain, parameters: summaries, sampler, warnings: [...warnings, ...samplerWarnings(sampler)] };
}

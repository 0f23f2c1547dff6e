import type { DiagnosticWarning, Summary } from "../diagnostics/index.ts";

/** Key of the sampler-diagnostics block; Stan reserves names ending in `__`, so no parameter collides. */
export const SAMPLER_BLOCK_KEY = "sampler__";

/** Statistics of one parameter as written to JSON; null stands for NA. */
export interface ParameterSummaryJson {
  mean: number | null;
  mcse_mean: number | null;
  sd: number | null;
  mad: number | null;
  q5: number | null;
  q50: number | null;
  q95: number | null;
  ess_bulk: number | null;
  ess_tail: number | null;
  rhat: number | null;
  /** Nested R-hat over the run's superchains (`ppl sample --superchains`); absent for runs without them. */
  rhat_nested?: number | null;
}

/** The sampler-diagnostics block of the JSON summary. */
export interface SamplerSummaryJson {
  chains: number;
  draws_per_chain: number;
  divergences: number | null;
  divergences_per_chain: number[] | null;
  max_treedepth: number | null;
  treedepth_hits: number | null;
  treedepth_hits_per_chain: number[] | null;
  ebfmi: Array<number | null> | null;
  warnings: DiagnosticWarning[];
}

/** The whole JSON summary: parameters by name plus the `sampler__` block. */
export type SummaryJson = { [name: string]: ParameterSummaryJson | SamplerSummaryJson };

function finite(x: number): number | null {
  // JSON has no NaN or infinities; NA and non-finite values become null.
  return Number.isFinite(x) ? x : null;
}

/** Converts a diagnostics summary to the JSON-ready object. */
export function summaryToJson(summary: Summary): SummaryJson {
  const out: SummaryJson = {};
  for (const p of summary.parameters) {
    out[p.name] = {
      mean: finite(p.mean),
      mcse_mean: finite(p.mcse_mean),
      sd: finite(p.sd),
      mad: finite(p.mad),
      q5: finite(p.q5),
      q50: finite(p.q50),
      q95: finite(p.q95),
      ess_bulk: finite(p.ess_bulk),
      ess_tail: finite(p.ess_tail),
      rhat: finite(p.rhat),
    };
  }
  const s = summary.sampler;
  out[SAMPLER_BLOCK_KEY] = {
    chains: summary.chains,
    draws_per_chain: summary.drawsPerChain,
    divergences: s ? s.divergences : null,
    divergences_per_chain: s ? s.divergencesPerChain : null,
    max_treedepth: s ? s.maxTreeDepth : null,
    treedepth_hits: s ? s.treeDepthHits : null,
    treedepth_hits_per_chain: s ? s.treeDepthHitsPerChain : null,
    ebfmi: s ? s.ebfmi.map(finite) : null,
    // JSON.stringify writes a NaN warning value as null.
    warnings: summary.warnings,
  };
  return out;
}

/** Serializes a diagnostics summary as JSON text keyed by parameter name. */
export function writeSummaryJson(summary: Summary, indent = 2): string {
  return JSON.stringify(summaryToJson(summary), null, indent) + "\n";
}

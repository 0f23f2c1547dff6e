/**
 * `ppl summary --percentiles 2.5,50,97.5`: the quantile columns at the percentiles asked for, in
 * place of the default 5%, 50% and 95%, as CmdStan's stansummary takes them. Each is R's type 7
 * quantile of the pooled draws, the definition the default columns use.
 */
import { quantile, type ChainDraws, type Summary, type SummaryJson } from "@ppl/ppl/diagnostics";

/** Quantile columns: a header ("2.5%") and a JSON key ("q2.5") per percentile, and each parameter's values. */
export interface PercentileColumns {
  readonly headers: readonly string[];
  readonly keys: readonly string[];
  /** Per parameter name, one value per percentile. */
  readonly values: ReadonlyMap<string, readonly number[]>;
}

/** The quantile columns of every parameter of `chains` at `percentiles` (each in (0, 100)). */
export function percentileColumns(chains: ChainDraws, percentiles: readonly number[]): PercentileColumns {
  const values = new Map<string, number[]>();
  for (const [name, perChain] of Object.entries(chains.parameters)) {
    const pooled = new Float64Array(perChain.reduce((n, c) => n + Math.min(c.length, chains.drawsPerChain), 0));
    let at = 0;
    for (const c of perChain) {
      pooled.set(c.subarray(0, chains.drawsPerChain), at);
      at += Math.min(c.length, chains.drawsPerChain);
    }
    values.set(name, percentiles.map((p) => quantile(pooled, p / 100)));
  }
  return { headers: percentiles.map((p) => `${p}%`), keys: percentiles.map((p) => `q${p}`), values };
}

/** The summary's JSON with the default quantiles (q5, q50, q95) replaced by the columns asked for. */
export function withPercentiles(json: SummaryJson, summary: Summary, columns: PercentileColumns): Record<string, unknown> {
  const out: Record<string, unknown> = { ...json };
  for (const p of summary.parameters) {
    const entry = json[p.name];
    if (entry === undefined || !("mean" in entry)) continue;
    const { q5: _q5, q50: _q50, q95: _q95, ...rest } = entry;
    const qs = columns.values.get(p.name) ?? [];
    const asked = Object.fromEntries(columns.keys.map((k, i) => [k, Number.isFinite(qs[i]!) ? qs[i]! : null]));
    // The quantiles stay where the default ones were: after mad, before the ESS.
    const { mean, mcse_mean, sd, mad, ...after } = rest;
    out[p.name] = { mean, mcse_mean, sd, mad, ...asked, ...after };
  }
  return out;
}

import type { Summary } from "@ppl/ppl/diagnostics";
import type { PercentileColumns } from "./percentiles.ts";

/** The table's columns: header, and how to read the value off a parameter summary. */
export const SUMMARY_COLUMNS = [
  { header: "mean", key: "mean" },
  { header: "MCSE", key: "mcse_mean" },
  { header: "sd", key: "sd" },
  { header: "MAD", key: "mad" },
  { header: "5%", key: "q5" },
  { header: "50%", key: "q50" },
  { header: "95%", key: "q95" },
  { header: "ESS_bulk", key: "ess_bulk" },
  { header: "ESS_tail", key: "ess_tail" },
  { header: "R_hat", key: "rhat" },
] as const;

/** Significant digits of the statistics in the table (ESS is shown whole, R-hat to 3 decimals). */
export const SIGNIFICANT_DIGITS = 4;

/** One statistic as the table shows it; NA for a value that is not finite. */
export function formatStat(key: (typeof SUMMARY_COLUMNS)[number]["key"], x: number): string {
  if (!Number.isFinite(x)) return "NA";
  if (key === "ess_bulk" || key === "ess_tail") return String(Math.round(x));
  if (key === "rhat") return x.toFixed(3);
  if (x === 0) return "0";
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e6) return Number(x.toPrecision(SIGNIFICANT_DIGITS)).toString();
  return x.toExponential(SIGNIFICANT_DIGITS - 1);
}

/** The per-parameter table as rows of cells, header first; `percentiles` (--percentiles) replace the 5%, 50% and 95% columns. */
export function summaryRows(summary: Summary, percentiles?: PercentileColumns): string[][] {
  const header = ["", ...SUMMARY_COLUMNS.map((c) => c.header)];
  const rows = summary.parameters.map((p) => [p.name, ...SUMMARY_COLUMNS.map((c) => formatStat(c.key, p[c.key]))]);
  if (percentiles === undefined) return [header, ...rows];
  const at = SUMMARY_COLUMNS.findIndex((c) => c.key === "q5") + 1;
  header.splice(at, 3, ...percentiles.headers);
  rows.forEach((r, i) => r.splice(at, 3, ...(percentiles.values.get(summary.parameters[i]!.name) ?? []).map((x) => formatStat("q50", x))));
  return [header, ...rows];
}

/** The summary as text: the table (then `note`, a line saying what it leaves out), the sampler diagnostics and the warnings. */
export function formatSummary(summary: Summary, percentiles?: PercentileColumns, note?: string): string {
  const rows = summaryRows(summary, percentiles);
  const widths = rows[0]!.map((_, j) => Math.max(...rows.map((r) => r[j]!.length)));
  const lines = rows.map((r) => r.map((cell, j) => (j === 0 ? cell.padEnd(widths[j]!) : cell.padStart(widths[j]!))).join("  ").trimEnd());
  if (note !== undefined) lines.push(note);
  lines.push("", ...samplerLines(summary), "", ...warningLines(summary));
  return lines.join("\n") + "\n";
}

/** The sampler-diagnostics lines: divergences, tree-depth hits and E-BFMI per chain. */
export function samplerLines(summary: Summary): string[] {
  const head = `Sampler diagnostics (${summary.chains} chain${summary.chains === 1 ? "" : "s"} × ${summary.drawsPerChain} draws):`;
  const s = summary.sampler;
  if (s === undefined) return [head, "  not available (the files have no divergent__, treedepth__ and energy__ columns)"];
  const perChain = (xs: readonly number[]): string => (xs.length > 1 ? ` (per chain: ${xs.join(", ")})` : "");
  return [
    head,
    `  divergences: ${s.divergences} of ${s.draws}${perChain(s.divergencesPerChain)}`,
    `  tree depth ${s.maxTreeDepth} reached: ${s.treeDepthHits} of ${s.draws}${perChain(s.treeDepthHitsPerChain)}`,
    `  E-BFMI per chain: ${s.ebfmi.map((e) => (Number.isFinite(e) ? e.toFixed(3) : "NA")).join(", ")}`,
  ];
}

/** The warnings, one per line, or a line saying there are none. */
export function warningLines(summary: Summary): string[] {
  if (summary.warnings.length === 0) return ["No warnings: R-hat, ESS, divergences, tree depth and E-BFMI are all within their thresholds."];
  return [`Warnings (${summary.warnings.length}):`, ...summary.warnings.map((w) => `  - ${w.message}`)];
}

import { LISTED_CHAINS, THRESHOLDS, type Summary } from "@ppl/ppl/diagnostics";
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

/** Chains beyond which the sampler lines give counts over the chains instead of a value per chain (the warnings' too). */
export { LISTED_CHAINS };

/** The sampler-diagnostics lines: divergences, tree-depth hits and E-BFMI per chain (over the chains, beyond LISTED_CHAINS). */
export function samplerLines(summary: Summary): string[] {
  const head = `Sampler diagnostics (${summary.chains} chain${summary.chains === 1 ? "" : "s"} × ${summary.drawsPerChain} draws):`;
  const s = summary.sampler;
  if (s === undefined) return [head, "  not available (the files have no divergent__, treedepth__ and energy__ columns)"];
  return [
    head,
    `  divergences: ${s.divergences} of ${s.draws}${perChain(s.divergencesPerChain)}`,
    `  tree depth ${s.maxTreeDepth} reached: ${s.treeDepthHits} of ${s.draws}${perChain(s.treeDepthHitsPerChain)}`,
    ebfmiLine(s.ebfmi),
  ];
}

// A count per chain, listed for a few chains; for many, in how many chains and the most in one.
function perChain(xs: readonly number[]): string {
  if (xs.length <= 1) return "";
  if (xs.length <= LISTED_CHAINS) return ` (per chain: ${xs.join(", ")})`;
  const hit = xs.filter((x) => x > 0).length;
  return hit === 0 ? "" : ` (in ${hit} of ${xs.length} chains, at most ${Math.max(...xs)} in one)`;
}

function ebfmiLine(ebfmi: readonly number[]): string {
  const fmt = (e: number): string => (Number.isFinite(e) ? e.toFixed(3) : "NA");
  if (ebfmi.length <= LISTED_CHAINS) return `  E-BFMI per chain: ${ebfmi.map(fmt).join(", ")}`;
  let low = 0;
  for (let c = 1; c < ebfmi.length; c++) if (!(ebfmi[c]! >= ebfmi[low]!)) low = c;
  const below = ebfmi.filter((e) => !(e >= THRESHOLDS.ebfmi)).length;
  return `  E-BFMI over ${ebfmi.length} chains: lowest ${fmt(ebfmi[low]!)} (chain ${low + 1}), ${below} below ${THRESHOLDS.ebfmi} (or NA)`;
}

/** The warnings, one per line, or a line saying there are none. */
export function warningLines(summary: Summary): string[] {
  if (summary.warnings.length === 0) return ["No warnings: R-hat, ESS, divergences, tree depth and E-BFMI are all within their thresholds."];
  return [`Warnings (${summary.warnings.length}):`, ...summary.warnings.map((w) => `  - ${w.message}`)];
}

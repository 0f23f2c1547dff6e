/** PSIS-LOO results as text, laid out as R's loo prints them, and as JSON. */
import { paretoKCategory, type LooCompareRow, type LooResult, type ParetoKCategory } from "@ppl/ppl";

/** What `ppl loo` read: draws per chain and chains, for the header line. */
export interface LooShape {
  readonly chains: number;
  readonly drawsPerChain: number;
}

const K_ROWS: readonly { category: ParetoKCategory; range: string; label: string }[] = [
  { category: "good", range: "(-Inf, 0.5]", label: "(good)" },
  { category: "ok", range: "(0.5, 0.7]", label: "(ok)" },
  { category: "bad", range: "(0.7, 1]", label: "(bad)" },
  { category: "very_bad", range: "(1, Inf)", label: "(very bad)" },
];

/** The estimates table, the Pareto k table with its count per category, and the k warnings. */
export function formatLoo(r: LooResult, shape: LooShape): string {
  const lines = [
    `Computed from ${r.draws} by ${r.observations} log-likelihood matrix (${shape.chains} chain${shape.chains === 1 ? "" : "s"} × ${shape.drawsPerChain} draws)`,
    "",
    ...table(
      ["", "Estimate", "SE"],
      [
        ["elpd_loo", fixed(r.elpd_loo), fixed(r.se_elpd_loo)],
        ["p_loo", fixed(r.p_loo), fixed(r.se_p_loo)],
        ["looic", fixed(r.looic), fixed(r.se_looic)],
      ],
    ),
    "------",
    "Pareto k diagnostic values:",
    ...table(
      ["", "", "Count", "Pct.", "Min. n_eff"],
      K_ROWS.map(({ category, range, label }) => {
        const count = r.pareto_k_counts[category];
        const nEff = Array.from(r.n_eff).filter((_, i) => paretoKCategory(r.pareto_k[i]!) === category);
        return [range, label, String(count), `${((100 * count) / r.observations).toFixed(1)}%`, nEff.length > 0 ? String(Math.round(Math.min(...nEff))) : "-"];
      }),
      2,
    ),
    "",
  ];
  const { ok, bad, very_bad: veryBad } = r.pareto_k_counts;
  if (ok + bad + veryBad === 0) lines.push("All Pareto k estimates are good (k < 0.5).");
  else if (bad + veryBad === 0) lines.push("All Pareto k estimates are ok (k < 0.7).");
  else lines.push(`Warnings (${r.warnings.length}):`, ...r.warnings.map((w) => `  - ${w}`));
  return lines.join("\n") + "\n";
}

/** loo_compare's table: elpd_diff and se_diff per run, the best first. */
export function formatLooCompare(rows: readonly LooCompareRow[]): string {
  return table(["", "elpd_diff", "se_diff", "elpd_loo", "se_elpd_loo", "p_loo", "looic"], rows.map((r) => [
    r.model, fixed(r.elpd_diff), fixed(r.se_diff), fixed(r.elpd_loo), fixed(r.se_elpd_loo), fixed(r.p_loo), fixed(r.looic),
  ])).join("\n") + "\n";
}

/** The JSON of one run: loo's estimates by their names, every pareto_k (null where loo says Inf), the counts and warnings. */
export function looJson(r: LooResult): Record<string, unknown> {
  return {
    elpd_loo: r.elpd_loo,
    se_elpd_loo: r.se_elpd_loo,
    p_loo: r.p_loo,
    se_p_loo: r.se_p_loo,
    looic: r.looic,
    se_looic: r.se_looic,
    pareto_k: Array.from(r.pareto_k, (k) => (Number.isFinite(k) ? k : null)),
    pareto_k_counts: r.pareto_k_counts,
    warnings: r.warnings,
    observations: r.observations,
    draws: r.draws,
  };
}

// One decimal, as loo prints (a value that rounds to zero is 0.0, never -0.0); NA for a value that
// is not finite (an SE from a single observation).
function fixed(x: number): string {
  if (!Number.isFinite(x)) return "NA";
  const text = x.toFixed(1);
  return text === "-0.0" ? "0.0" : text;
}

// Rows of cells, the first `left` columns left-aligned (labels) and the others right-aligned (numbers).
function table(header: readonly string[], rows: readonly (readonly string[])[], left = 1): string[] {
  const all = [header, ...rows];
  const widths = header.map((_, j) => Math.max(...all.map((r) => r[j]!.length)));
  return all.map((r) => r.map((cell, j) => (j < left ? cell.padEnd(widths[j]!) : cell.padStart(widths[j]!))).join("  ").trimEnd());
}

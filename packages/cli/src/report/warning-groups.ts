/**
 * The report's warnings, grouped so that a long list reads at a glance: the sampler's problems
 * first (divergences, tree depth, E-BFMI: they can make every estimate wrong), then one line per
 * per-parameter criterion naming the parameters it flags, with their values.
 */
import { type DiagnosticWarning, ESS_RULE, THRESHOLDS, type WarningKind } from "@ppl/ppl";

/** One line of the grouped warnings. */
export interface WarningGroup {
  readonly kind: WarningKind;
  /** "sampler" for the run-wide problems, "parameters" for per-parameter criteria. */
  readonly scope: "sampler" | "parameters";
  readonly text: string;
}

/** The order of the lines: sampler problems, then the per-parameter criteria. */
const ORDER: readonly WarningKind[] = ["divergences", "treedepth", "ebfmi", "nonfinite", "rhat", "ess_bulk", "ess_tail"];
const SAMPLER: ReadonlySet<WarningKind> = new Set(["divergences", "treedepth", "ebfmi"]);

/** A flagged value as the summary table prints its kind: R-hat to 3 decimals, E-BFMI to 2, ESS and counts whole. */
function fmt(kind: WarningKind, x: number): string {
  if (!Number.isFinite(x)) return "NA";
  if (kind === "rhat") return x.toFixed(3);
  if (kind === "ebfmi") return x.toFixed(2);
  return String(Math.round(x));
}

/** The warnings as grouped lines, in the order of ORDER. */
export function groupWarnings(warnings: readonly DiagnosticWarning[]): WarningGroup[] {
  const out: WarningGroup[] = [];
  for (const kind of ORDER) {
    const of = warnings.filter((w) => w.kind === kind);
    if (of.length === 0) continue;
    const scope = SAMPLER.has(kind) ? "sampler" : "parameters";
    out.push({ kind, scope, text: groupText(kind, of) });
  }
  return out;
}

function groupText(kind: WarningKind, ws: readonly DiagnosticWarning[]): string {
  // Divergences and tree depth are one warning each, already a sentence with the counts.
  if (kind === "divergences" || kind === "treedepth") return ws.map((w) => w.message).join(" ");
  const list = (label: (w: DiagnosticWarning) => string): string => ws.map((w) => `${label(w)} (${fmt(kind, w.value)})`).join(", ");
  const param = (w: DiagnosticWarning): string => w.parameter ?? "?";
  const count = (noun: string): string => `${ws.length} ${noun}${ws.length === 1 ? "" : "s"}`;
  switch (kind) {
    case "ebfmi":
      // Beyond LISTED_CHAINS chains one warning counts them: its message already says it all.
      if (ws.length === 1 && ws[0]!.chains !== undefined) return ws[0]!.message;
      return `E-BFMI below ${THRESHOLDS.ebfmi} in ${count("chain")}: ${list((w) => `chain ${(w.chain ?? 0) + 1}`)}. The sampler may not explore the posterior's energy well; reparameterize.`;
    case "nonfinite":
      return `NaN or infinite draws in ${count("parameter")} (number of such draws): ${list(param)}. Their statistics are NA; check the expressions that compute them (a log or division of a value that reaches 0, an overflow) or their bounds.`;
    case "rhat":
      return `R-hat above ${THRESHOLDS.rhat} for ${count("parameter")}: ${list(param)}. The chains have not mixed; run longer or reparameterize.`;
    case "ess_bulk":
      return `Bulk-ESS below ${ws[0]!.threshold} (${ESS_RULE}) for ${count("parameter")}: ${list(param)}. Their means and medians may be unreliable; run more draws.`;
    case "ess_tail":
      return `Tail-ESS below ${ws[0]!.threshold} (${ESS_RULE}) for ${count("parameter")}: ${list(param)}. Their tail quantiles may be unreliable; run more draws.`;
  }
}

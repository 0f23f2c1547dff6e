/**
 * `--variables` (`-v`): which variables a command shows, by Stan's rules. A base name selects the
 * variable with all its elements (`theta` → theta[1] … theta[8]); an element name selects that
 * element (`theta[2]`, or Stan CSV's `theta.2`). Without the option, the printed summary of
 * `ppl sample` and `ppl report` leave out the per-observation families (log_lik and the predictive
 * draws y_rep), which can be thousands of rows, and say how many they left out.
 */
import { fromStanCsvName, LOG_LIK_NAME, PREDICTIVE_SUFFIX, splitName } from "@ppl/ppl";
import type { ChainDraws, Summary } from "@ppl/ppl/diagnostics";
import { usageError } from "./exit-codes.ts";

/** The names a command shows, and the families it left out by default. */
export interface VariableSelection {
  /** The names shown: in the run's order by default, else in the order asked for. */
  readonly names: readonly string[];
  /** Left out by default: base name → count of elements (empty when --variables was given, or nothing was left out). */
  readonly hidden: ReadonlyMap<string, number>;
}

/** True for a per-observation family the default view leaves out: log_lik, and predictive draws <name>_rep. */
export function isPerObservation(name: string): boolean {
  const { base } = splitName(name);
  return base === LOG_LIK_NAME || (base.endsWith(PREDICTIVE_SUFFIX) && base.length > PREDICTIVE_SUFFIX.length);
}

/**
 * The names of `all` (bracket names: mu, theta[1], …) that `wanted` selects by Stan's rules; with no
 * `wanted`, all of them, less the per-observation families when `hideByDefault`. A name that
 * selects nothing is a usage error naming the variables there are.
 */
export function selectVariables(all: readonly string[], wanted: readonly string[] | undefined, hideByDefault: boolean, option = "--variables"): VariableSelection {
  if (wanted === undefined) {
    if (!hideByDefault) return { names: all, hidden: new Map() };
    const hidden = new Map<string, number>();
    for (const n of all) if (isPerObservation(n)) hidden.set(splitName(n).base, (hidden.get(splitName(n).base) ?? 0) + 1);
    // Nothing else to show (a model whose only columns are predictive): show everything.
    if (hidden.size > 0 && all.every(isPerObservation)) return { names: all, hidden: new Map() };
    return { names: all.filter((n) => !isPerObservation(n)), hidden };
  }
  const keep = new Set<string>();
  const present = new Set(all);
  for (const w of wanted) {
    const name = fromStanCsvName(w.replace(/\s+/g, ""));
    const matched = present.has(name) ? [name] : all.filter((n) => splitName(n).base === name);
    if (matched.length === 0) throw usageError(`${option}: '${w}' is not a variable of this run (${describeVariables(all)})`);
    for (const m of matched) keep.add(m);
  }
  // In the order asked for, as cmdstanpy's and posterior's selections keep it.
  return { names: [...keep], hidden: new Map() };
}

/** The draws with only the selected parameters (the sampler's columns stay); draws read when asked for (a run's spill) are still read only then. */
export function pickParameters(chains: ChainDraws, selection: VariableSelection): ChainDraws {
  return { ...chains, parameters: pickEntries(chains.parameters, selection.names) };
}

/** The entries `names` of a record, in that order, each as it is there: a getter stays a getter, so that nothing is read before it is asked for. */
export function pickEntries<T>(record: Readonly<Record<string, T>>, names: Iterable<string>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const n of names) {
    const d = Object.getOwnPropertyDescriptor(record, n);
    if (d !== undefined) Object.defineProperty(out, n, { ...d, enumerable: true, configurable: true });
  }
  return out;
}

/** The summary of the selected names only, in the selection's order (rows, and the warnings about them; the run-wide warnings stay). */
export function filterSummary(summary: Summary, selection: VariableSelection): Summary {
  const keep = new Set(selection.names);
  const rows = new Map(summary.parameters.map((p) => [p.name, p]));
  return {
    ...summary,
    parameters: selection.names.flatMap((n) => rows.get(n) ?? []),
    warnings: summary.warnings.filter((w) => w.parameter === undefined || keep.has(w.parameter)),
  };
}

/** The line saying what the default view left out and how to see it; undefined when nothing was. */
export function hiddenNote(summary: Summary, selection: VariableSelection): string | undefined {
  if (selection.hidden.size === 0) return undefined;
  const rows = [...selection.hidden.values()].reduce((a, b) => a + b, 0);
  const families = [...selection.hidden].map(([base, n]) => `${base}: ${n}`).join(", ");
  const keep = new Set(selection.names);
  const warnings = summary.warnings.filter((w) => w.parameter !== undefined && !keep.has(w.parameter)).length;
  const also = warnings > 0 ? ` and ${warnings} warning${warnings === 1 ? "" : "s"} about them` : "";
  return `${rows} per-observation row${rows === 1 ? "" : "s"} not shown (${families})${also}; --variables ${[...selection.hidden.keys()].join(",")} shows them`;
}

/** The variables of a run as a message lists them: base names with their element counts, the first 20. */
export function describeVariables(all: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const n of all) counts.set(splitName(n).base, (counts.get(splitName(n).base) ?? 0) + 1);
  const list = [...counts].map(([b, n]) => (n > 1 ? `${b} (${n})` : b));
  return `variables: ${list.slice(0, 20).join(", ")}${list.length > 20 ? ", …" : ""}`;
}

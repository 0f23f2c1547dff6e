/**
 * What the report's predictive panels need of each observe term: the observed values (from the
 * run's data file, which the CSV header names, as `ppl export` finds it), the predictive draws
 * <name>_rep and the term's log_lik entries (log_lik[1] … log_lik[N] cut by term, in the terms'
 * order), each element's draws [chain][draw]. Elements are in row-major order, as the columns'
 * brackets and the data's nested arrays are.
 */
import { existsSync } from "node:fs";
import { LOG_LIK_NAME, observedTermsOf, PREDICTIVE_SUFFIX, readDataLayout, splitName, type ChainDraws, type ObservedTerm } from "@ppl/ppl";
import { loadData } from "../load-data.ts";

/** One observe term's observed values and draws. */
export interface ObservedFamily {
  /** The observed data field (y), or obsK for a term that observes an expression. */
  readonly name: string;
  /** The observed values, flattened row-major; null when the data file is not there or the term observes an expression. */
  readonly observed: Float64Array | null;
  /** Predictive draws of each element, [element][chain][draw]; null without --predictive. */
  readonly yRep: readonly (readonly Float64Array[])[] | null;
  /** Log-likelihood of each pointwise entry, [entry][chain][draw]; null without --log-lik or when the terms do not account for the columns. */
  readonly logLik: readonly (readonly Float64Array[])[] | null;
  /** True when the observed values and every predictive draw are integers (counts: bars, not densities). */
  readonly integer: boolean;
  /** True when each element is one pointwise entry (a univariate distribution): LOO-PIT pairs them. */
  readonly univariate: boolean;
}

/** The observe terms of a run with what the report can draw of them, and notes on what it could not find. */
export interface Observations {
  readonly families: readonly ObservedFamily[];
  readonly notes: readonly string[];
}

/** The observe terms of the run whose draws are `chains` and whose header is `config`; `dataFile` overrides the header's data file. */
export function observationsOf(chains: ChainDraws, config: Readonly<Record<string, string>>, dataFile?: string): Observations {
  const terms = observedTermsOf(chains, readDataLayout(config));
  const notes: string[] = [];
  const recorded = config["data.file"] || undefined;
  const file = dataFile ?? (recorded !== undefined && existsSync(recorded) ? recorded : undefined);
  if (dataFile === undefined && recorded !== undefined && file === undefined && terms.length > 0) {
    notes.push(`the run's data file '${recorded}' is not there, so the observed values are not drawn (give --data FILE)`);
  }
  const data = file !== undefined ? loadData(file) : undefined;
  const record = typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  const logLik = logLikByTerm(chains, terms);
  const families = terms.map((t, k): ObservedFamily => {
    const yRep = elements(chains, t.name + PREDICTIVE_SUFFIX);
    const observed = t.field && record[t.name] !== undefined ? Float64Array.from(flatten(record[t.name])) : null;
    const integer = observed !== null && observed.every(Number.isInteger) && (yRep === null || yRep.every((e) => e.every((c) => c.every(Number.isInteger))));
    const size = t.pointwise.reduce((a, b) => a * b, 1);
    return { name: t.name, observed, yRep, logLik: logLik?.[k] ?? null, integer, univariate: t.event.length === 0 && (yRep === null || yRep.length === size) };
  });
  for (const f of families) {
    if (f.observed !== null && f.yRep !== null && f.observed.length !== f.yRep.length) {
      notes.push(`'${f.name}' has ${f.observed.length} observed values and ${f.yRep.length} predictive columns; check that the data file is the run's`);
    }
  }
  return { families, notes };
}

// The columns base[…] in row-major order of their indices, or null when there are none.
function elements(chains: ChainDraws, base: string): Float64Array[][] | null {
  const found = Object.keys(chains.parameters)
    .map((name) => ({ name, ...splitName(name) }))
    .filter((e) => e.base === base);
  if (found.length === 0) return null;
  found.sort((a, b) => {
    for (let k = 0; k < Math.max(a.index.length, b.index.length); k++) {
      const d = (a.index[k] ?? 0) - (b.index[k] ?? 0);
      if (d !== 0) return d;
    }
    return 0;
  });
  return found.map((e) => chains.parameters[e.name]!.map((c) => Float64Array.from(c)));
}

// log_lik[1] … log_lik[N] cut into the terms' pointwise entries, or null when they do not account for the N columns.
function logLikByTerm(chains: ChainDraws, terms: readonly ObservedTerm[]): Float64Array[][][] | null {
  const columns = elements(chains, LOG_LIK_NAME);
  if (columns === null || terms.length === 0) return null;
  const sizes = terms.map((t) => t.pointwise.reduce((a, b) => a * b, 1));
  if (sizes.reduce((a, b) => a + b, 0) !== columns.length) return null;
  let offset = 0;
  return sizes.map((n) => columns.slice(offset, (offset += n)));
}

function flatten(v: unknown): number[] {
  if (typeof v === "number") return [v];
  return Array.isArray(v) ? v.flatMap(flatten) : [NaN];
}

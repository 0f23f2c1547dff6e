/**
 * ArviZ's InferenceData from Stan CSV draws: the groups and variables of `ppl export` and of
 * `fit.toInferenceData(path)`, laid out as ArviZ's schema and from_cmdstan lay them out (each
 * variable [chain, draw, …] with dims chain, draw and NAME_dim_K, 0-based int64 coords), ready to
 * be written as netCDF4 (see netcdf.ts). The
 * observed data, their predictive draws and their log-likelihood share the observed variable's
 * name, so that ArviZ pairs them with no arguments (plot_ppc, loo_pit).
 */
import { PREDICTIVE_SUFFIX } from "../generate/generated.ts";
import { LOG_LIK_NAME } from "../loo/pointwise-log-lik.ts";
import type { ChainDraws } from "./chains.ts";
import type { DataLayout, ObservedTerm } from "./data-layout.ts";
import type { SamplerColumn } from "./sampler-columns.ts";

/** One variable of a group: its dims, shape (row-major) and values. */
export interface InferenceVariable {
  readonly name: string;
  readonly dims: readonly string[];
  readonly shape: readonly number[];
  readonly values: Float64Array;
  /** Stored as 0/1 bytes that xarray decodes to booleans (its "dtype": "bool" encoding). */
  readonly bool?: boolean;
  /** Stored as 64-bit integers, as numpy's default int (counts, integer data). */
  readonly int?: boolean;
}

/** One InferenceData group: its variables and the length of each dim they use. */
export interface InferenceGroup {
  readonly name: string;
  readonly variables: readonly InferenceVariable[];
  readonly dims: ReadonlyMap<string, number>;
}

// Keyed by SamplerColumn, so that a column added to SAMPLER_COLUMNS without its ArviZ name does not compile.
const STATS_NAMES: Readonly<Record<SamplerColumn, string>> = {
  lp__: "lp",
  accept_stat__: "acceptance_rate",
  stepsize__: "step_size",
  treedepth__: "tree_depth",
  n_leapfrog__: "n_steps",
  divergent__: "diverging",
  energy__: "energy",
};

/**
 * The leading columns of the approximations' files under the names ArviZ's from_cmdstan gives a
 * sampler column (the name without its trailing "__"); lp__ is the samplers'.
 */
export const APPROXIMATION_STATS_NAMES: Readonly<Record<string, string>> = {
  log_p__: "log_p",
  log_g__: "log_g",
  lp_approx__: "lp_approx",
};

/** Stan's sampler columns, and the approximations' log_p__, log_g__ and lp_approx__, under ArviZ's sample_stats names (from_cmdstan's mapping), looked up by a file's column names. */
export const SAMPLE_STATS_NAMES: Readonly<Record<string, string>> = { ...STATS_NAMES, ...APPROXIMATION_STATS_NAMES };

/** The base name and 1-based indices of a bracket name: theta[2,1] → theta, [2, 1]. */
export function splitName(name: string): { base: string; index: number[] } {
  const m = /^(.*)\[([\d,\s]+)\]$/.exec(name);
  if (m === null) return { base: name, index: [] };
  return { base: m[1]!, index: m[2]!.split(",").map((s) => Number(s.trim())) };
}

/** Columns (bracket names → [chain][draw]) gathered into variables [chain, draw, …], in the order their first columns come. */
export function variablesOf(columns: ReadonlyMap<string, readonly Float64Array[]>, chains: number, draws: number, rename: (base: string) => string = (b) => b): InferenceVariable[] {
  const byBase = new Map<string, { index: number[]; draws: readonly Float64Array[] }[]>();
  for (const [name, perChain] of columns) {
    const { base, index } = splitName(name);
    let list = byBase.get(base);
    if (list === undefined) byBase.set(base, (list = []));
    list.push({ index, draws: perChain });
  }
  const out: InferenceVariable[] = [];
  for (const [base, entries] of byBase) {
    const rank = entries[0]!.index.length;
    const shape = Array.from({ length: rank }, (_, k) => Math.max(...entries.map((e) => e.index[k] ?? 1)));
    const size = shape.reduce((a, b) => a * b, 1);
    const values = new Float64Array(chains * draws * size).fill(NaN);
    for (const e of entries) {
      let flat = 0;
      for (let k = 0; k < rank; k++) flat = flat * shape[k]! + (e.index[k]! - 1);
      for (let c = 0; c < chains; c++) for (let d = 0; d < draws; d++) values[(c * draws + d) * size + flat] = e.draws[c]![d]!;
    }
    const name = rename(base);
    out.push({ name, dims: ["chain", "draw", ...shape.map((_, k) => `${name}_dim_${k}`)], shape: [chains, draws, ...shape], values });
  }
  return out;
}

/** A group from its variables, with each dim's length taken from them. */
export function inferenceGroup(name: string, variables: readonly InferenceVariable[]): InferenceGroup {
  const dims = new Map<string, number>();
  for (const v of variables) v.dims.forEach((d, k) => dims.set(d, v.shape[k]!));
  return { name, variables, dims };
}

/**
 * The observe terms of a run: as its header records them, or else (CmdStan's files, older runs)
 * one per predictive family <name>_rep, shaped as its columns.
 */
export function observedTermsOf(draws: ChainDraws, layout: DataLayout): readonly ObservedTerm[] {
  if (layout.observed !== undefined) return layout.observed;
  const shapes = new Map<string, number[]>();
  for (const name of Object.keys(draws.parameters)) {
    const { base, index } = splitName(name);
    if (!base.endsWith(PREDICTIVE_SUFFIX) || base.length === PREDICTIVE_SUFFIX.length) continue;
    const key = base.slice(0, -PREDICTIVE_SUFFIX.length);
    const shape = shapes.get(key) ?? index.map(() => 0);
    shapes.set(key, shape.map((n, k) => Math.max(n, index[k] ?? 1)));
  }
  return [...shapes].map(([name, pointwise]) => ({ name, field: true, pointwise, event: [] }));
}

/**
 * The groups of one run's draws: posterior, sample_stats and, when present, log_likelihood and
 * posterior_predictive (or, for a prior run, prior and prior_predictive). Predictive draws and
 * log-likelihood are named after the observed variable (y_rep → y); draws of an integer
 * observation are int64.
 */
export function runGroups(draws: ChainDraws, samplerColumns: readonly string[], prior: boolean, layout: DataLayout): InferenceGroup[] {
  const chains = Object.values(draws.columns)[0]?.length ?? 0;
  const n = draws.drawsPerChain;
  const cut = (perChain: readonly Float64Array[]) => perChain.map((c) => c.subarray(0, n));
  const terms = observedTermsOf(draws, layout);
  const predictive = new Map(terms.map((t) => [t.name + PREDICTIVE_SUFFIX, t]));
  const parts = { posterior: new Map<string, readonly Float64Array[]>(), predictive: new Map<string, readonly Float64Array[]>(), logLik: new Map<string, readonly Float64Array[]>() };
  for (const [name, perChain] of Object.entries(draws.parameters)) {
    const { base } = splitName(name);
    const part = base === LOG_LIK_NAME ? parts.logLik : predictive.has(base) ? parts.predictive : parts.posterior;
    part.set(name, cut(perChain));
  }
  const groups: InferenceGroup[] = [];
  groups.push(inferenceGroup(prior ? "prior" : "posterior", variablesOf(parts.posterior, chains, n)));
  if (parts.predictive.size > 0) {
    const ints = layout.intData;
    const variables = variablesOf(parts.predictive, chains, n, (b) => b.slice(0, -PREDICTIVE_SUFFIX.length)).map((v) =>
      ints?.has(v.name) && predictive.get(v.name + PREDICTIVE_SUFFIX)!.field && v.values.every(Number.isInteger) ? { ...v, int: true } : v,
    );
    groups.push(inferenceGroup(prior ? "prior_predictive" : "posterior_predictive", variables));
  }
  if (!prior && parts.logLik.size > 0) groups.push(inferenceGroup("log_likelihood", logLikVariables(parts.logLik, terms, chains, n)));
  const stats = samplerColumns.filter((c) => SAMPLE_STATS_NAMES[c] !== undefined && draws.columns[c] !== undefined);
  if (!prior && stats.length > 0) {
    const variables = stats.map((c): InferenceVariable => {
      const values = new Float64Array(chains * n);
      cut(draws.columns[c]!).forEach((col, k) => values.set(col, k * n));
      return { name: SAMPLE_STATS_NAMES[c]!, dims: ["chain", "draw"], shape: [chains, n], values, ...(c === "divergent__" ? { bool: true } : c === "treedepth__" || c === "n_leapfrog__" ? { int: true } : {}) };
    });
    groups.push(inferenceGroup("sample_stats", variables));
  }
  return groups;
}

// log_lik[1] … log_lik[N] cut into one variable per observe term (in the terms' order, each its
// pointwise shape), named after the observed variable; one variable log_lik when the terms do not
// account for the N entries (a run whose header does not say).
function logLikVariables(columns: ReadonlyMap<string, readonly Float64Array[]>, terms: readonly ObservedTerm[], chains: number, draws: number): InferenceVariable[] {
  const sizes = terms.map((t) => t.pointwise.reduce((a, b) => a * b, 1));
  if (terms.length === 0 || sizes.reduce((a, b) => a + b, 0) !== columns.size) return variablesOf(columns, chains, draws);
  const out: InferenceVariable[] = [];
  let offset = 0;
  terms.forEach((t, k) => {
    const size = sizes[k]!;
    const values = new Float64Array(chains * draws * size);
    for (let j = 0; j < size; j++) {
      const perChain = columns.get(`${LOG_LIK_NAME}[${offset + j + 1}]`)!;
      for (let c = 0; c < chains; c++) for (let d = 0; d < draws; d++) values[(c * draws + d) * size + j] = perChain[c]![d]!;
    }
    offset += size;
    out.push({ name: t.name, dims: ["chain", "draw", ...t.pointwise.map((_, i) => `${t.name}_dim_${i}`)], shape: [chains, draws, ...t.pointwise], values });
  });
  return out;
}

/**
 * observed_data and constant_data from Stan JSON data: the fields that observe terms condition on,
 * and every other numeric field, each with dims NAME_dim_K (as from_cmdstan with a data file).
 * Integer fields (as the header records them; else fields whose values are all integers, as numpy
 * reads JSON) are int64.
 */
export function dataGroups(data: Readonly<Record<string, unknown>>, terms: readonly ObservedTerm[], layout: DataLayout): InferenceGroup[] {
  const observedNames = new Set(terms.filter((t) => t.field).map((t) => t.name));
  const observed: InferenceVariable[] = [];
  const constant: InferenceVariable[] = [];
  for (const [name, value] of Object.entries(data)) {
    const shape = shapeOf(value);
    if (shape === null) continue;
    const values = Float64Array.from(flatten(value));
    const int = layout.intData !== undefined ? layout.intData.has(name) : values.every(Number.isInteger);
    const v: InferenceVariable = { name, dims: shape.map((_, k) => `${name}_dim_${k}`), shape, values, ...(int && values.every(Number.isInteger) ? { int: true } : {}) };
    (observedNames.has(name) ? observed : constant).push(v);
  }
  return [inferenceGroup("observed_data", observed), inferenceGroup("constant_data", constant)];
}

// The shape of a number or of rectangular nested arrays of numbers; null for anything else.
function shapeOf(v: unknown): number[] | null {
  if (typeof v === "number") return [];
  if (!Array.isArray(v) || v.length === 0) return null;
  const inner = v.map(shapeOf);
  const first = inner[0];
  if (first === null || first === undefined || inner.some((s) => s === null || s.join(",") !== first.join(","))) return null;
  return [v.length, ...first];
}

function flatten(v: unknown): number[] {
  return typeof v === "number" ? [v] : (v as unknown[]).flatMap(flatten);
}

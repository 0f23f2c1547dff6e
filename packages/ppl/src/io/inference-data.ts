/**
 * ArviZ's InferenceData from Stan CSV draws: the groups and variables of `ppl export` and of
 * `fit.toInferenceData(path)`, laid out as ArviZ's schema and from_cmdstan lay them out (each
 * variable [chain, draw, …] with dims chain, draw and NAME_dim_K, 0-based int64 coords), ready to
 * be written as netCDF4 (see netcdf.ts). The
 * observed data, their predictive draws and their log-likelihood share the observed variable's
 * name, so that ArviZ pairs them with no arguments (plot_ppc, loo_pit).
 */
import { drawsSource, type DrawSource } from "../diagnostics/draw-source.ts";
import { PREDICTIVE_SUFFIX } from "../generate/generated.ts";
import { LOG_LIK_NAME } from "../loo/pointwise-log-lik.ts";
import type { ChainDraws } from "./chains.ts";
import { fromStanCsvName } from "./names.ts";
import type { DataLayout, ObservedTerm } from "./data-layout.ts";
import type { SamplerColumn } from "./sampler-columns.ts";

/** One variable of a group: its dims, shape (row-major) and values. */
export interface InferenceVariable {
  readonly name: string;
  readonly dims: readonly string[];
  readonly shape: readonly number[];
  /** Every value, row-major (for a variable of draws with `slab`, made when asked for: the writer takes slabs instead). */
  readonly values: Float64Array;
  /**
   * For a variable of draws (dims chain, draw, …): fills `out` with draws start .. start + k - 1
   * of chain `chain`, each draw's values row-major, where k is out.length over a draw's values, so
   * that a writer holds a stretch of draws at a time, not the variable.
   */
  readonly slab?: (chain: number, start: number, out: Float64Array) => void;
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
  const sources = new Map([...columns].map(([name, perChain]) => [name, drawsSource(perChain.map((c) => c.subarray(0, draws)))] as const));
  return variablesOfSources(sources, chains, draws, rename);
}

// `variablesOf` over columns read a stretch at a time: each variable's values are made a slab at a time when written.
function variablesOfSources(columns: ReadonlyMap<string, DrawSource>, chains: number, draws: number, rename: (base: string) => string = (b) => b): InferenceVariable[] {
  const byBase = new Map<string, { index: number[]; source: DrawSource }[]>();
  for (const [name, source] of columns) {
    const { base, index } = splitName(name);
    let list = byBase.get(base);
    if (list === undefined) byBase.set(base, (list = []));
    list.push({ index, source });
  }
  const out: InferenceVariable[] = [];
  for (const [base, entries] of byBase) {
    const rank = entries[0]!.index.length;
    const shape = Array.from({ length: rank }, (_, k) => Math.max(...entries.map((e) => e.index[k] ?? 1)));
    const elements = entries.map((e) => {
      let flat = 0;
      for (let k = 0; k < rank; k++) flat = flat * shape[k]! + (e.index[k]! - 1);
      return { flat, source: e.source };
    });
    const name = rename(base);
    out.push(drawsVariable(name, ["chain", "draw", ...shape.map((_, k) => `${name}_dim_${k}`)], [chains, draws, ...shape], elements));
  }
  return out;
}

/**
 * A variable of draws [chain, draw, …] whose elements (at `flat` within a draw's values) are read
 * from their sources a stretch at a time: `slab` for a writer, `values` made whole when asked for.
 * An element that no column gives is NaN.
 */
function drawsVariable(name: string, dims: readonly string[], shape: readonly number[], elements: readonly { flat: number; source: DrawSource }[], flags: { bool?: boolean; int?: boolean } = {}): InferenceVariable {
  const size = shape.slice(2).reduce((a, b) => a * b, 1);
  let column = new Float64Array(0);
  const slab = (chain: number, start: number, out: Float64Array): void => {
    const count = out.length / size;
    if (column.length !== count) column = new Float64Array(count);
    if (elements.length < size) out.fill(NaN);
    for (const e of elements) {
      e.source.read(chain, start, column);
      for (let d = 0; d < count; d++) out[d * size + e.flat] = column[d]!;
    }
  };
  const values = (): Float64Array => {
    const [chains, draws] = [shape[0]!, shape[1]!];
    const all = new Float64Array(chains * draws * size);
    for (let c = 0; c < chains; c++) slab(c, 0, all.subarray(c * draws * size, (c + 1) * draws * size));
    return all;
  };
  return Object.defineProperty({ name, dims, shape, slab, ...flags }, "values", { get: values, enumerable: true }) as InferenceVariable;
}

/** The same variable with `flags` set (its values still made when asked for). */
function withFlags(v: InferenceVariable, flags: { bool?: boolean; int?: boolean }): InferenceVariable {
  return Object.defineProperties({ ...flags }, { ...Object.getOwnPropertyDescriptors(v), ...Object.getOwnPropertyDescriptors(flags) }) as InferenceVariable;
}

/** Whether every value of a variable is an integer, read a slab at a time where it has slabs. */
function everyInteger(v: InferenceVariable): boolean {
  if (v.slab === undefined) return v.values.every(Number.isInteger);
  const [chains, draws] = [v.shape[0]!, v.shape[1]!];
  const size = v.shape.slice(2).reduce((a, b) => a * b, 1);
  const step = Math.max(1, Math.floor(SLAB_VALUES / Math.max(1, size)));
  const buf = new Float64Array(step * size);
  for (let c = 0; c < chains; c++) {
    for (let d = 0; d < draws; d += step) {
      const part = buf.subarray(0, Math.min(step, draws - d) * size);
      v.slab(c, d, part);
      if (!part.every(Number.isInteger)) return false;
    }
  }
  return true;
}

/** Values a slab of draws holds at most, where variables of draws are read or written a slab at a time (8 MB of float64). */
export const SLAB_VALUES = 1 << 20;

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
  // From the first column's source where there is one: its chains read from a file would be read only to count them.
  const first = Object.keys(draws.columns)[0];
  const chains = first === undefined ? 0 : (draws.source?.(fromStanCsvName(first))?.chains ?? draws.columns[first]!.length);
  const n = draws.drawsPerChain;
  // Each column read a stretch at a time: from the run's file where it is there (draws.source), else from the arrays, cut to n.
  const sourceOf = (name: string, get: () => readonly Float64Array[]): DrawSource => draws.source?.(name) ?? drawsSource(get().map((c) => c.subarray(0, n)));
  const terms = observedTermsOf(draws, layout);
  const predictive = new Map(terms.map((t) => [t.name + PREDICTIVE_SUFFIX, t]));
  const parts = { posterior: new Map<string, DrawSource>(), predictive: new Map<string, DrawSource>(), logLik: new Map<string, DrawSource>() };
  for (const name of Object.keys(draws.parameters)) {
    const { base } = splitName(name);
    const part = base === LOG_LIK_NAME ? parts.logLik : predictive.has(base) ? parts.predictive : parts.posterior;
    part.set(name, sourceOf(name, () => draws.parameters[name]!));
  }
  const groups: InferenceGroup[] = [];
  groups.push(inferenceGroup(prior ? "prior" : "posterior", variablesOfSources(parts.posterior, chains, n)));
  if (parts.predictive.size > 0) {
    const ints = layout.intData;
    const variables = variablesOfSources(parts.predictive, chains, n, (b) => b.slice(0, -PREDICTIVE_SUFFIX.length)).map((v) =>
      ints?.has(v.name) && predictive.get(v.name + PREDICTIVE_SUFFIX)!.field && everyInteger(v) ? withFlags(v, { int: true }) : v,
    );
    groups.push(inferenceGroup(prior ? "prior_predictive" : "posterior_predictive", variables));
  }
  if (!prior && parts.logLik.size > 0) groups.push(inferenceGroup("log_likelihood", logLikVariables(parts.logLik, terms, chains, n)));
  const stats = samplerColumns.filter((c) => SAMPLE_STATS_NAMES[c] !== undefined && draws.columns[c] !== undefined);
  if (!prior && stats.length > 0) {
    const variables = stats.map((c): InferenceVariable => {
      const flags = c === "divergent__" ? { bool: true } : c === "treedepth__" || c === "n_leapfrog__" ? { int: true } : {};
      return drawsVariable(SAMPLE_STATS_NAMES[c]!, ["chain", "draw"], [chains, n], [{ flat: 0, source: sourceOf(c, () => draws.columns[c]!) }], flags);
    });
    groups.push(inferenceGroup("sample_stats", variables));
  }
  return groups;
}

// log_lik[1] … log_lik[N] cut into one variable per observe term (in the terms' order, each its
// pointwise shape), named after the observed variable; one variable log_lik when the terms do not
// account for the N entries (a run whose header does not say).
function logLikVariables(columns: ReadonlyMap<string, DrawSource>, terms: readonly ObservedTerm[], chains: number, draws: number): InferenceVariable[] {
  const sizes = terms.map((t) => t.pointwise.reduce((a, b) => a * b, 1));
  if (terms.length === 0 || sizes.reduce((a, b) => a + b, 0) !== columns.size) return variablesOfSources(columns, chains, draws);
  const out: InferenceVariable[] = [];
  let offset = 0;
  terms.forEach((t, k) => {
    const size = sizes[k]!;
    const elements = Array.from({ length: size }, (_, j) => ({ flat: j, source: columns.get(`${LOG_LIK_NAME}[${offset + j + 1}]`)! }));
    offset += size;
    out.push(drawsVariable(t.name, ["chain", "draw", ...t.pointwise.map((_, i) => `${t.name}_dim_${i}`)], [chains, draws, ...t.pointwise], elements));
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

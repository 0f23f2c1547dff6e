/**
 * ArviZ's InferenceData from Stan CSV draws: the groups and variables of `ppl export`, laid out as
 * ArviZ's from_cmdstan lays them out (each variable [chain, draw, …] with dims chain, draw and
 * NAME_dim_K, 0-based integer coords), ready to be written as netCDF4 (see netcdf.ts).
 */
import type { ChainDraws, SamplerColumn } from "@ppl/ppl";

/** One variable of a group: its dims, shape (row-major) and values. */
export interface Variable {
  readonly name: string;
  readonly dims: readonly string[];
  readonly shape: readonly number[];
  readonly values: Float64Array;
  /** Stored as 0/1 bytes that xarray decodes to booleans (its "dtype": "bool" encoding). */
  readonly bool?: boolean;
  /** Stored as 32-bit integers (counts: tree depth, leapfrog steps). */
  readonly int?: boolean;
}

/** One InferenceData group: its variables and the length of each dim they use. */
export interface Group {
  readonly name: string;
  readonly variables: readonly Variable[];
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

/** Stan's sampler columns under ArviZ's sample_stats names (from_cmdstan's mapping), looked up by a file's column names. */
export const SAMPLE_STATS_NAMES: Readonly<Record<string, string>> = STATS_NAMES;

/** The base name and 1-based indices of a bracket name: theta[2,1] → theta, [2, 1]. */
export function splitName(name: string): { base: string; index: number[] } {
  const m = /^(.*)\[([\d,\s]+)\]$/.exec(name);
  if (m === null) return { base: name, index: [] };
  return { base: m[1]!, index: m[2]!.split(",").map((s) => Number(s.trim())) };
}

/** Columns (bracket names → [chain][draw]) gathered into variables [chain, draw, …], in the order their first columns come. */
export function variablesOf(columns: ReadonlyMap<string, readonly Float64Array[]>, chains: number, draws: number, rename: (base: string) => string = (b) => b): Variable[] {
  const byBase = new Map<string, { index: number[]; draws: readonly Float64Array[] }[]>();
  for (const [name, perChain] of columns) {
    const { base, index } = splitName(name);
    let list = byBase.get(base);
    if (list === undefined) byBase.set(base, (list = []));
    list.push({ index, draws: perChain });
  }
  const out: Variable[] = [];
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
export function group(name: string, variables: readonly Variable[]): Group {
  const dims = new Map<string, number>();
  for (const v of variables) v.dims.forEach((d, k) => dims.set(d, v.shape[k]!));
  return { name, variables, dims };
}

/** Which group a parameter column of a posterior run belongs to. */
export type ColumnGroup = "posterior" | "log_likelihood" | "posterior_predictive";

/** log_lik[…] columns are the pointwise log-likelihood, <field>_rep[…] the predictive draws (`ppl sample --log-lik --predictive`), the rest the posterior. */
export function columnGroup(name: string): ColumnGroup {
  const { base } = splitName(name);
  if (base === "log_lik") return "log_likelihood";
  if (base.endsWith("_rep")) return "posterior_predictive";
  return "posterior";
}

/** The groups of one run's draws: posterior, sample_stats and, when present, log_likelihood and posterior_predictive (or, for a prior run, prior and prior_predictive). */
export function runGroups(draws: ChainDraws, samplerColumns: readonly string[], prior: boolean): Group[] {
  const chains = Object.values(draws.columns)[0]?.length ?? 0;
  const n = draws.drawsPerChain;
  const cut = (perChain: readonly Float64Array[]) => perChain.map((c) => c.subarray(0, n));
  const parts: Record<ColumnGroup, Map<string, readonly Float64Array[]>> = { posterior: new Map(), log_likelihood: new Map(), posterior_predictive: new Map() };
  for (const [name, perChain] of Object.entries(draws.parameters)) parts[columnGroup(name)].set(name, cut(perChain));
  const groups: Group[] = [];
  groups.push(group(prior ? "prior" : "posterior", variablesOf(parts.posterior, chains, n)));
  if (parts.posterior_predictive.size > 0) groups.push(group(prior ? "prior_predictive" : "posterior_predictive", variablesOf(parts.posterior_predictive, chains, n)));
  if (!prior && parts.log_likelihood.size > 0) groups.push(group("log_likelihood", variablesOf(parts.log_likelihood, chains, n)));
  const stats = samplerColumns.filter((c) => SAMPLE_STATS_NAMES[c] !== undefined && draws.columns[c] !== undefined);
  if (!prior && stats.length > 0) {
    const variables = stats.map((c): Variable => {
      const values = new Float64Array(chains * n);
      cut(draws.columns[c]!).forEach((col, k) => values.set(col, k * n));
      return { name: SAMPLE_STATS_NAMES[c]!, dims: ["chain", "draw"], shape: [chains, n], values, ...(c === "divergent__" ? { bool: true } : c === "treedepth__" || c === "n_leapfrog__" ? { int: true } : {}) };
    });
    groups.push(group("sample_stats", variables));
  }
  return groups;
}

/** observed_data from Stan JSON data: every numeric field, each with dims NAME_dim_K (as from_cmdstan with a data file). */
export function observedGroup(data: Readonly<Record<string, unknown>>): Group {
  const variables: Variable[] = [];
  for (const [name, value] of Object.entries(data)) {
    const shape = shapeOf(value);
    if (shape === null) continue;
    const values = Float64Array.from(flatten(value));
    variables.push({ name, dims: shape.map((_, k) => `${name}_dim_${k}`), shape, values });
  }
  return group("observed_data", variables);
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

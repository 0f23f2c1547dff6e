/**
 * A Fit's draws as ArviZ's InferenceData file: the same builders `ppl export` lays a run's CSV files
 * out with (io/inference-data.ts), fed from memory: the draws by column, the data layout from the
 * compiled model (what the CSV header records), the data as given to sample.
 */
import type { TensorValue } from "@ppl/tensor";
import { dataLayoutOf } from "../io/data-layout.ts";
import { dataGroups, inferenceGroup, runGroups } from "../io/inference-data.ts";
import { toStanCsvName } from "../io/names.ts";
import { inferenceDataAttributes, writeNetcdf } from "../io/netcdf.ts";
import { SAMPLER_COLUMNS } from "../io/sampler-columns.ts";
import type { ChainDraws } from "../io/chains.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { Model } from "../model/model.ts";

/** What a Fit's InferenceData is made from. */
export interface FitInferenceInputs {
  readonly model: Model;
  readonly compiled: CompiledModel;
  /** The data as given to sample, in its key order. */
  readonly data: Readonly<Record<string, unknown>>;
  /** Column (bracket names, and the sampler's `__` columns) → per chain the kept draws. */
  readonly columns: ReadonlyMap<string, readonly Float64Array[]>;
  /** The method that made the draws, when they are not MCMC (the file's inference_method). */
  readonly method?: string;
}

/** Writes the InferenceData file of a run held in memory to `path` (replaced); resolves to the path. */
export async function writeFitInferenceData(path: string, inputs: FitInferenceInputs): Promise<string> {
  const { model, compiled, columns } = inputs;
  const layout = dataLayoutOf(model, compiled);
  const draws = chainDrawsOf(columns);
  const sampler = [...columns.keys()].filter((n) => n.endsWith("__"));
  const groups = [...runGroups(draws, sampler, false, layout), ...dataGroups(dataRecord(inputs.data, compiled.data), layout.observed, layout)];
  await writeNetcdf(path, groups.filter((g) => g.variables.length > 0).map((g) => inferenceGroup(g.name, g.variables)), inferenceDataAttributes(model.name, inputs.method));
  return path;
}

// The columns as the CSV reader regroups them: every column under its file name, the parameters under their bracket names.
function chainDrawsOf(columns: ReadonlyMap<string, readonly Float64Array[]>): ChainDraws {
  const byFile: Record<string, Float64Array[]> = {};
  const parameters: Record<string, Float64Array[]> = {};
  for (const [name, draws] of columns) {
    byFile[name.endsWith("__") ? name : toStanCsvName(name)] = [...draws];
    if (!name.endsWith("__")) parameters[name] = [...draws];
  }
  const first = columns.values().next().value;
  const sampler = SAMPLER_COLUMNS.every((c) => columns.has(c))
    ? { divergent: byFile["divergent__"]!, treedepth: byFile["treedepth__"]!, energy: byFile["energy__"]! }
    : undefined;
  return { columns: byFile, parameters, drawsPerChain: first?.[0]?.length ?? 0, ...(sampler !== undefined ? { sampler } : {}) };
}

// The data in the order given, each field the model declares as checked (its values and shape,
// whatever form it was given in: nested arrays or a typed array), any other field as given.
function dataRecord(data: Readonly<Record<string, unknown>>, checked: Readonly<Record<string, TensorValue>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(data).map(([key, value]) => {
    const t = checked[key];
    return [key, t !== undefined ? nested(Array.from(t.data), t.shape) : value];
  }));
}

// Row-major values as nested arrays of `shape` (a number for a scalar).
function nested(values: readonly number[], shape: readonly number[]): unknown {
  if (shape.length === 0) return values[0];
  const [n, ...rest] = shape;
  const size = rest.reduce((a, b) => a * b, 1);
  return Array.from({ length: n! }, (_, i) => nested(values.slice(i * size, (i + 1) * size), rest));
}

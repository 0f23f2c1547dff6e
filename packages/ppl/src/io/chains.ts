import type { DrawSource, SamplerDraws } from "../diagnostics/index.ts";
import { fromStanCsvName } from "./names.ts";
import type { StanCsv } from "./stan-csv-reader.ts";

/** Draws of several chains regrouped per column, ready for `summarize`. */
export interface ChainDraws {
  /** Parameter columns (all not ending in `__`) by bracket name, each [chain][draw]. */
  readonly parameters: Record<string, Float64Array[]>;
  /** Every column by its name as in the file, each [chain][draw]. */
  readonly columns: Record<string, Float64Array[]>;
  /** Divergence, tree depth and energy columns when all three are present. */
  readonly sampler?: SamplerDraws;
  /** Draws per chain used (the shortest chain's count, so an interrupted chain fits). */
  readonly drawsPerChain: number;
  /**
   * A column's draws (a parameter's by its bracket name) read a stretch at a time, where they are
   * in a file rather than in memory: the summary then holds one parameter's draws, not every
   * column's, and an export one stretch of a variable.
   */
  readonly source?: (name: string) => DrawSource | undefined;
}

/**
 * Regroups one-chain-per-file Stan CSV contents into per-column [chain][draw]
 * arrays. Chains must have the same columns; longer chains are cut to the
 * shortest so that a run interrupted mid-way can still be summarized.
 */
export function collectChains(files: readonly StanCsv[]): ChainDraws {
  if (files.length === 0) throw new Error("no Stan CSV files to collect");
  const names = files[0]!.columns;
  files.forEach((f, i) => {
    if (f.columns.length !== names.length || f.columns.some((c, k) => c !== names[k])) {
      throw new Error(`chain ${i + 1} has different columns than chain 1`);
    }
  });
  return chainsFromColumns(names, files.map((f) => f.draws));
}

/**
 * The same regrouping for draws held in memory: `names` are Stan CSV column names, `draws[chain][column]`
 * each chain's values of a column; chains are cut to the shortest.
 */
export function chainsFromColumns(names: readonly string[], draws: readonly (readonly Float64Array[])[]): ChainDraws {
  const drawsPerChain = Math.min(...draws.map((d) => d[0]?.length ?? 0));
  const columns: Record<string, Float64Array[]> = {};
  const parameters: Record<string, Float64Array[]> = {};
  names.forEach((name, c) => {
    const chains = draws.map((d) => d[c]!.subarray(0, drawsPerChain));
    columns[name] = chains;
    if (!name.endsWith("__")) parameters[fromStanCsvName(name)] = chains;
  });
  const divergent = columns["divergent__"];
  const treedepth = columns["treedepth__"];
  const energy = columns["energy__"];
  const sampler = divergent && treedepth && energy ? { divergent, treedepth, energy } : undefined;
  return { parameters, columns, ...(sampler !== undefined ? { sampler } : {}), drawsPerChain };
}

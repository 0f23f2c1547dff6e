/**
 * A run's draws as `ChainDraws`, read from its columnar spill when asked for: a parameter's
 * columns whole (what the nested R-hat and --target-ess take), or a stretch of a chain at a time
 * through `source` (what the summary takes, so that it holds one parameter's draws, sorted, and
 * no column of every chain besides); the sampler's columns a chain at a time.
 */
import { fromStanCsvName, type ChainDraws } from "@ppl/ppl";
import type { DrawSource } from "@ppl/ppl/diagnostics";
import type { ColumnSpill } from "./column-spill.ts";

/** The rows spilled so far (cut to the shortest chain) of columns `names`, as ChainDraws. */
export function spillDraws(kept: ColumnSpill, names: readonly string[], chains: number): ChainDraws {
  let length = Infinity;
  for (let c = 0; c < chains; c++) length = Math.min(length, kept.rows(c));
  const n = chains === 0 ? 0 : length;
  const columns: Record<string, Float64Array[]> = {};
  const parameters: Record<string, Float64Array[]> = {};
  const sources = new Map<string, DrawSource>();
  names.forEach((name, k) => {
    if (name.endsWith("__")) {
      // Sampler columns go to the diagnostics chain by chain: each chain is read when it is taken.
      Object.defineProperty(columns, name, { get: () => lazyChains(kept, k, n, chains), enumerable: true });
      return;
    }
    const get = { get: () => kept.column(k, n), enumerable: true };
    Object.defineProperty(columns, name, get);
    Object.defineProperty(parameters, fromStanCsvName(name), get);
    sources.set(fromStanCsvName(name), { chains, iterations: n, read: (c, start, out) => kept.read(c, k, start, out) });
  });
  const has = ["divergent__", "treedepth__", "energy__"].every((c) => names.includes(c));
  const sampler = has ? {
    get divergent() { return columns["divergent__"]!; },
    get treedepth() { return columns["treedepth__"]!; },
    get energy() { return columns["energy__"]!; },
  } : undefined;
  return { parameters, columns, ...(sampler !== undefined ? { sampler } : {}), drawsPerChain: n, source: (name) => sources.get(name) };
}

// Column k's chains, each read from the spill when it is asked for (again at each access: take a chain once).
function lazyChains(kept: ColumnSpill, k: number, n: number, chains: number): Float64Array[] {
  const out: Float64Array[] = [];
  for (let c = 0; c < chains; c++) {
    Object.defineProperty(out, c, {
      get: () => {
        const x = new Float64Array(n);
        kept.read(c, k, 0, x);
        return x;
      },
      enumerable: true,
    });
  }
  out.length = chains;
  return out;
}

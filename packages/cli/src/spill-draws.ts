/**
 * A run's draws as `ChainDraws`, read from its columnar spill when asked for: a parameter's
 * columns whole (what the nested R-hat and --target-ess take), or a stretch of a chain at a time
 * through `source` (what the summary takes, so that it holds one parameter's draws, sorted, and
 * no column of every chain besides); the sampler's columns a chain at a time.
 */
import { fromStanCsvName, type ChainDraws } from "@ppl/ppl";
import type { DrawSource } from "@ppl/ppl/diagnostics";
import type { ColumnSpill } from "./column-spill.ts";

/** Where one chain's draws lie in a spill: the spill's chain, and the row its draws start at. */
export interface SpillStretch {
  readonly chain: number;
  readonly first: number;
  /** Draws of the chain from `first` on. */
  readonly rows: number;
}

/** The rows spilled so far (cut to the shortest chain) of columns `names`, as ChainDraws. */
export function spillDraws(kept: ColumnSpill, names: readonly string[], chains: number): ChainDraws {
  return spillStretchDraws(kept, names, Array.from({ length: chains }, (_, c) => ({ chain: c, first: 0, rows: kept.rows(c) })));
}

/** The draws of `stretches` (one per chain of the run, cut to the shortest) of columns `names`, as ChainDraws. */
export function spillStretchDraws(kept: ColumnSpill, names: readonly string[], stretches: readonly SpillStretch[]): ChainDraws {
  let length = Infinity;
  for (const s of stretches) length = Math.min(length, s.rows);
  const n = stretches.length === 0 ? 0 : length;
  const columns: Record<string, Float64Array[]> = {};
  const parameters: Record<string, Float64Array[]> = {};
  const sources = new Map<string, DrawSource>();
  names.forEach((name, k) => {
    // Every column, the sampler's too, can be read a stretch at a time (ppl export writes them so).
    sources.set(fromStanCsvName(name), { chains: stretches.length, iterations: n, read: (c, start, out) => kept.read(stretches[c]!.chain, k, stretches[c]!.first + start, out) });
    if (name.endsWith("__")) {
      // Sampler columns go to the diagnostics chain by chain: each chain is read when it is taken.
      Object.defineProperty(columns, name, { get: () => lazyChains(kept, k, n, stretches), enumerable: true });
      return;
    }
    const get = { get: () => stretches.map((s) => readStretch(kept, s, k, n)), enumerable: true };
    Object.defineProperty(columns, name, get);
    Object.defineProperty(parameters, fromStanCsvName(name), get);
  });
  const has = ["divergent__", "treedepth__", "energy__"].every((c) => names.includes(c));
  const sampler = has ? {
    get divergent() { return columns["divergent__"]!; },
    get treedepth() { return columns["treedepth__"]!; },
    get energy() { return columns["energy__"]!; },
  } : undefined;
  return { parameters, columns, ...(sampler !== undefined ? { sampler } : {}), drawsPerChain: n, source: (name) => sources.get(name) };
}

/** The first `n` draws of column `k` of one stretch, read from the spill. */
export function readStretch(kept: ColumnSpill, s: SpillStretch, k: number, n: number): Float64Array {
  const x = new Float64Array(n);
  kept.read(s.chain, k, s.first, x);
  return x;
}

// Column k's chains, each read from the spill when it is asked for (again at each access: take a chain once).
function lazyChains(kept: ColumnSpill, k: number, n: number, stretches: readonly SpillStretch[]): Float64Array[] {
  const out: Float64Array[] = [];
  stretches.forEach((s, c) => Object.defineProperty(out, c, { get: () => readStretch(kept, s, k, n), enumerable: true }));
  out.length = stretches.length;
  return out;
}

import type { Draws } from "./draws.ts";

/**
 * One parameter's draws, read a stretch of a chain at a time: from arrays in memory, or from a
 * file that holds them (a run's spill), so that a summary need not hold every chain at once.
 */
export interface DrawSource {
  readonly chains: number;
  /** Draws per chain. */
  readonly iterations: number;
  /** Copies draws start .. start + out.length - 1 of chain `chain` (0-based) into `out`. */
  read(chain: number, start: number, out: Float64Array): void;
}

/** True for a DrawSource, false for draws in arrays. */
export function isDrawSource(x: Draws | DrawSource): x is DrawSource {
  return !Array.isArray(x) && typeof (x as DrawSource).read === "function";
}

/** Draws in memory ([chain][draw]) as a DrawSource; checked as `toChainMatrix` checks them. */
export function drawsSource(draws: Draws): DrawSource {
  const chains = draws.length;
  if (chains === 0) throw new Error("draws must contain at least one chain");
  const iterations = draws[0]!.length;
  for (let c = 1; c < chains; c++) {
    const length = draws[c]!.length;
    if (length !== iterations) throw new Error(`all chains must have the same number of draws: chain 1 has ${iterations}, chain ${c + 1} has ${length}`);
  }
  return {
    chains,
    iterations,
    read(chain, start, out) {
      const x = draws[chain]!;
      if (x instanceof Float64Array) out.set(x.subarray(start, start + out.length));
      else for (let i = 0; i < out.length; i++) out[i] = x[start + i]!;
    },
  };
}

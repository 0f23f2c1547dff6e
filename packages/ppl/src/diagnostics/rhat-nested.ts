/**
 * Nested R-hat (Margossian, Hoffman, Sountsov, Riou-Durand, Vehtari & Gelman 2023), for many short
 * chains grouped in K superchains of M chains each (the chains of a superchain start from one
 * point), N draws a chain. With chain means f̄.mk, superchain means f̄..k and their mean f̄...:
 *   B̂ν = 1/(K−1) Σk (f̄..k − f̄...)²                   between superchains
 *   B̃k = 1/(M−1) Σm (f̄.mk − f̄..k)²  (0 when M = 1)   between the chains of superchain k
 *   W̃k = 1/M Σm 1/(N−1) Σn (θnmk − f̄.mk)²  (0 when N = 1)   within its chains
 *   Ŵν = 1/K Σk (B̃k + W̃k),   nR̂ = √(1 + B̂ν / Ŵν).
 * The chains are not split (the paper's definition); NaN where R-hat is NA (non-finite or constant draws).
 */
import { type ChainMatrix, type Draws, chainOf, shouldReturnNA, toChainMatrix } from "./draws.ts";
import { mean, variance } from "./moments.ts";

/** A typed error for superchain labels that do not fit the draws. */
export class SuperchainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SuperchainError";
  }
}

// The chains of each superchain, in order of first appearance; every superchain the same size.
function groupsOf(superchains: ArrayLike<number>, chains: number): number[][] {
  if (superchains.length !== chains) throw new SuperchainError(`superchains: ${superchains.length} labels for ${chains} chains; give one label per chain`);
  const groups = new Map<number, number[]>();
  for (let c = 0; c < chains; c++) {
    const k = superchains[c]!;
    let g = groups.get(k);
    if (!g) groups.set(k, (g = []));
    g.push(c);
  }
  const all = [...groups.values()];
  if (all.length < 2) throw new SuperchainError("superchains: nested R-hat compares superchains; give at least 2");
  const m = all[0]!.length;
  if (all.some((g) => g.length !== m)) throw new SuperchainError(`superchains: every superchain must hold the same number of chains (sizes ${all.map((g) => g.length).join(", ")})`);
  return all;
}

/** Nested R-hat of a chain matrix whose chain c belongs to superchain superchains[c]. */
export function rhatNestedOfMatrix(m: ChainMatrix, superchains: ArrayLike<number>): number {
  const groups = groupsOf(superchains, m.chains);
  if (shouldReturnNA(m.values)) return NaN;
  const n = m.iterations;
  const chainMeans = new Float64Array(m.chains);
  const chainVars = new Float64Array(m.chains);
  for (let c = 0; c < m.chains; c++) {
    const chain = chainOf(m, c);
    chainMeans[c] = mean(chain);
    chainVars[c] = n > 1 ? variance(chain) : 0;
  }
  const superMeans = new Float64Array(groups.length);
  const within = new Float64Array(groups.length);
  groups.forEach((g, k) => {
    const means = Float64Array.from(g, (c) => chainMeans[c]!);
    superMeans[k] = mean(means);
    const between = g.length > 1 ? variance(means) : 0;
    within[k] = between + mean(Float64Array.from(g, (c) => chainVars[c]!));
  });
  return Math.sqrt(1 + variance(superMeans) / mean(within));
}

/** Nested R-hat of one quantity's draws ([chain][draw]) with a superchain label per chain. */
export function rhatNested(draws: Draws, superchains: ArrayLike<number>): number {
  return rhatNestedOfMatrix(toChainMatrix(draws), superchains);
}

/** Superchain labels of `chains` chains in `k` contiguous groups (chain c in group ⌊c·k/chains⌋). */
export function contiguousSuperchains(chains: number, k: number): Int32Array {
  if (!Number.isInteger(k) || k < 2 || chains % k !== 0) throw new SuperchainError(`superchains: ${k} superchains do not divide ${chains} chains into equal groups; pick a divisor of ${chains} (≥ 2)`);
  return Int32Array.from({ length: chains }, (_, c) => Math.floor((c * k) / chains));
}

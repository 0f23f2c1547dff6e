import type { Draws } from "./draws.ts";
import { finish } from "./steps.ts";

/** Per-draw sampler columns needed for the sampler diagnostics, each [chain][draw]. */
export interface SamplerDraws {
  /** `divergent__`: 1 for a divergent transition, else 0. */
  readonly divergent: Draws;
  /** `treedepth__`: tree depth of each transition. */
  readonly treedepth: Draws;
  /** `energy__`: Hamiltonian at each draw. */
  readonly energy: Draws;
}

/** Sampler diagnostics over all chains. */
export interface SamplerDiagnostics {
  /** Number of divergent transitions in each chain. */
  readonly divergencesPerChain: number[];
  /** Total number of divergent transitions. */
  readonly divergences: number;
  /** Maximum tree depth the sampler was run with. */
  readonly maxTreeDepth: number;
  /** Number of transitions that reached the maximum tree depth, per chain. */
  readonly treeDepthHitsPerChain: number[];
  /** Total number of transitions that reached the maximum tree depth. */
  readonly treeDepthHits: number;
  /** Energy Bayesian fraction of missing information, per chain. */
  readonly ebfmi: number[];
  /** Total number of draws over all chains. */
  readonly draws: number;
}

/** Number of draws in `chain` with a non-zero value (divergences). */
export function countNonZero(chain: ArrayLike<number>): number {
  let count = 0;
  for (let i = 0; i < chain.length; i++) if (chain[i]! !== 0) count++;
  return count;
}

/** Number of draws in `chain` whose tree depth reached `maxDepth`. */
export function countTreeDepthHits(chain: ArrayLike<number>, maxDepth: number): number {
  let count = 0;
  for (let i = 0; i < chain.length; i++) if (chain[i]! >= maxDepth) count++;
  return count;
}

/**
 * E-BFMI of one chain as CmdStan computes it: the sum of squared successive
 * energy differences over the sum of squared deviations from the mean energy.
 * NaN for fewer than two draws or constant energy.
 */
export function ebfmi(energy: ArrayLike<number>): number {
  const n = energy.length;
  if (n < 2) return NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += energy[i]!;
  const m = sum / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    const d = energy[i]! - m;
    den += d * d;
    if (i > 0) {
      const diff = energy[i]! - energy[i - 1]!;
      num += diff * diff;
    }
  }
  return den > 0 ? num / den : NaN;
}

/** Divergences, tree-depth saturation and E-BFMI per chain. */
export function samplerDiagnostics(sampler: SamplerDraws, maxTreeDepth: number): SamplerDiagnostics {
  return finish(samplerDiagnosticsSteps(sampler, maxTreeDepth));
}

/** `samplerDiagnostics` in steps: the generator yields after each chain of each column (each read once, where they are read from a file when taken). */
export function* samplerDiagnosticsSteps(sampler: SamplerDraws, maxTreeDepth: number): Generator<void, SamplerDiagnostics, void> {
  const divergencesPerChain: number[] = [];
  const lengths: number[] = [];
  for (const chain of sampler.divergent) {
    divergencesPerChain.push(countNonZero(chain));
    lengths.push(chain.length);
    yield;
  }
  const treeDepthHitsPerChain: number[] = [];
  for (const chain of sampler.treedepth) {
    treeDepthHitsPerChain.push(countTreeDepthHits(chain, maxTreeDepth));
    yield;
  }
  const ebfmis: number[] = [];
  for (const chain of sampler.energy) {
    ebfmis.push(ebfmi(chain));
    yield;
  }
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  return {
    divergencesPerChain,
    divergences: sum(divergencesPerChain),
    maxTreeDepth,
    treeDepthHitsPerChain,
    treeDepthHits: sum(treeDepthHitsPerChain),
    ebfmi: ebfmis,
    draws: sum(lengths),
  };
}

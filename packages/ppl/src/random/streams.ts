/**
 * Random streams keyed by (seed, chain, iteration, purpose): every random
 * quantity the sampler uses is one Philox4x32-10 block, addressed directly, so
 * any transition of any chain can be replayed alone and compared across
 * backends (the GPU shader computes the same blocks).
 *
 * Mapping (all words unsigned 32-bit):
 *   key     = (seed mod 2³², floor(seed / 2³²))
 *   counter = (chain, iteration, purpose | sub << 8, block)
 * `chain` is the 0-based chain id, `iteration` the 0-based global iteration
 * (warmup first, then sampling), `purpose` one of {@link Purpose} (< 256),
 * `sub` a purpose-specific sub-stream (< 2²⁴, e.g. the attempt number), and
 * `block` the block index inside that stream.
 *
 * A block's words (x0, x1, x2, x3) give two uniforms,
 * u0 = uniformFromWords(x0, x1) and u1 = uniformFromWords(x2, x3), and two
 * standard normals by Box–Muller, n0 = r·cos(2π·u1), n1 = r·sin(2π·u1) with
 * r = sqrt(−2·log u0). A vector of length n uses blocks 0 … ceil(n/2)−1:
 * element 2b comes from block b's first variate, element 2b+1 from its second.
 */

import { philox4x32 } from "./philox.ts";
import { boxMullerCos, boxMullerSin, exponentialFromUniform, uniformFromWords } from "./variates.ts";

/**
 * What a random block is for; the third counter word's low byte. Which
 * counter draws which quantity:
 *
 * | purpose  | iteration                       | sub          | block                  | use                                   |
 * |----------|---------------------------------|--------------|------------------------|---------------------------------------|
 * | Init     | 0                               | attempt 0…99 | 0 … ceil(dim/2)−1      | uniforms → coordinates in (−R, R)     |
 * | Momentum | transition's iteration          | 0            | 0 … ceil(dim/2)−1      | normals → p ~ N(0, M)                 |
 * | Tree     | transition's iteration          | 0            | depth (0 … maxDepth−1) | u0: direction (forward if > 0.5); u1: top-level merge |
 * | Leaf     | transition's iteration          | 0            | leapfrog index in the transition (0-based) | u0: progressive sampling inside a subtree |
 * | Accept   | transition's iteration          | 0            | 0                      | u0: static HMC Metropolis test        |
 * | StepSize | iteration the search precedes   | trial j      | 0 … ceil(dim/2)−1      | normals → trial momentum              |
 * | Generated | kept draw (0-based, per chain) | quantity k (m.generated, declaration order) | 0, 1, … (StreamRng) | the quantity's random draws |
 * | Predictive | kept draw (0-based, per chain) | observe term k (declaration order) | 0, 1, … (StreamRng) | the predictive draw of that term |
 * | Prior    | prior draw (0-based, per chain) | parameter k (declaration order) | 0, 1, … (StreamRng) | the parameter's draw from its prior |
 * | Standalone | 0                             | 0            | 0, 1, … (StreamRng)    | philoxRng(seed, stream): draws outside a run (chain = stream) |
 * | Pathfinder | L-BFGS iteration t (≥ 1); 0 for the resampling | draw k; 0 for the resampling | 0 … ceil(dim/2)−1 | chain = path: normals → draw k of the approximation at t; chain 0, iteration 0: uniforms → draw i of the PSIS resampling (block ⌊i/2⌋, variate i mod 2) |
 *
 * The step-size search before the first iteration uses iteration 0; the one
 * after a metric window that closes at iteration t uses t + 1. Generated,
 * Predictive, Prior and Standalone are drawn on the host only, from the
 * constrained draws, so they do not depend on the backend that sampled;
 * Pathfinder's are addressed per path and iteration so that paths run as
 * batched chains draw the same numbers.
 */
export const Purpose = {
  Init: 1,
  Momentum: 2,
  Tree: 3,
  Leaf: 4,
  Accept: 5,
  StepSize: 6,
  Generated: 7,
  Predictive: 8,
  Prior: 9,
  Standalone: 10,
  Pathfinder: 11,
} as const;

/** One of the {@link Purpose} codes. */
export type Purpose = (typeof Purpose)[keyof typeof Purpose];

/** The Philox key derived from a seed. */
export interface SeedKey {
  readonly lo: number;
  readonly hi: number;
}

const TWO_POW_32 = 2 ** 32;

/** Splits an integer seed in [0, 2⁵³) into the two key words. */
export function seedKey(seed: number): SeedKey {
  if (!Number.isSafeInteger(seed) || seed < 0) {
    throw new RangeError(`seed must be an integer in [0, 2^53), got ${seed}`);
  }
  return { lo: seed % TWO_POW_32 >>> 0, hi: Math.floor(seed / TWO_POW_32) >>> 0 };
}

// One scratch block: the functions below are called per leapfrog step and must not allocate.
const words = new Uint32Array(4);

/** Writes the Philox block for (seed, chain, iteration, purpose, sub, block) to out[0..3]. */
export function streamBlock(
  key: SeedKey,
  chain: number,
  iteration: number,
  purpose: Purpose,
  sub: number,
  block: number,
  out: Uint32Array,
): void {
  philox4x32(chain, iteration, (purpose | (sub << 8)) >>> 0, block, key.lo, key.hi, out);
}

/** Uniform in (0, 1): variate `which` (0 or 1) of the addressed block. */
export function streamUniform(
  key: SeedKey,
  chain: number,
  iteration: number,
  purpose: Purpose,
  sub: number,
  block: number,
  which: 0 | 1,
): number {
  streamBlock(key, chain, iteration, purpose, sub, block, words);
  return which === 0 ? uniformFromWords(words[0], words[1]) : uniformFromWords(words[2], words[3]);
}

/** Fills out with uniforms in (0, 1) from blocks 0 … ceil(n/2)−1 of the stream. */
export function streamUniforms(
  key: SeedKey,
  chain: number,
  iteration: number,
  purpose: Purpose,
  sub: number,
  out: Float64Array,
): void {
  const n = out.length;
  for (let b = 0; 2 * b < n; b++) {
    streamBlock(key, chain, iteration, purpose, sub, b, words);
    out[2 * b] = uniformFromWords(words[0], words[1]);
    if (2 * b + 1 < n) out[2 * b + 1] = uniformFromWords(words[2], words[3]);
  }
}

/** Fills out with standard normals (Box–Muller) from blocks 0 … ceil(n/2)−1 of the stream. */
export function streamNormals(
  key: SeedKey,
  chain: number,
  iteration: number,
  purpose: Purpose,
  sub: number,
  out: Float64Array,
): void {
  const n = out.length;
  for (let b = 0; 2 * b < n; b++) {
    streamBlock(key, chain, iteration, purpose, sub, b, words);
    const u0 = uniformFromWords(words[0], words[1]);
    const u1 = uniformFromWords(words[2], words[3]);
    out[2 * b] = boxMullerCos(u0, u1);
    if (2 * b + 1 < n) out[2 * b + 1] = boxMullerSin(u0, u1);
  }
}

/** Fills out with standard exponentials from blocks 0 … ceil(n/2)−1 of the stream. */
export function streamExponentials(
  key: SeedKey,
  chain: number,
  iteration: number,
  purpose: Purpose,
  sub: number,
  out: Float64Array,
): void {
  streamUniforms(key, chain, iteration, purpose, sub, out);
  for (let i = 0; i < out.length; i++) out[i] = exponentialFromUniform(out[i]);
}

/**
 * The random source of every distribution's sampler: a Philox stream read block after block, so
 * that a draw depends only on its (seed, chain, iteration, purpose, sub) address — the same on any
 * backend, and replayable alone (a generated quantity of one draw of one chain, say).
 */
import { Purpose, seedKey, streamBlock, type SeedKey } from "./streams.ts";
import { boxMullerCos, boxMullerSin, uniformFromWords } from "./variates.ts";

/** The random source distributions sample from: uniforms in the open interval (0, 1) and standard normals. */
export interface Rng {
  /** A uniform draw in the open interval (0, 1). */
  uniform(): number;
  /** A standard normal draw. */
  normal(): number;
}

const BLOCKS = 2 ** 32;

/**
 * An Rng over one Philox stream (seed, chain, iteration, purpose, sub): blocks 0, 1, 2, … in turn.
 * Uniforms take a block's two uniforms (u0, then u1), normals a block's Box–Muller pair (cosine,
 * then sine); each kind keeps its own spare, and no block is used twice. A run of uniforms alone is
 * `streamUniforms` of the stream, a run of normals alone `streamNormals`.
 */
export class StreamRng implements Rng {
  private readonly words = new Uint32Array(4);
  private block = 0;
  private spareUniform: number | undefined;
  private spareNormal: number | undefined;

  constructor(
    private readonly key: SeedKey,
    private chain: number,
    private iteration: number,
    private purpose: Purpose,
    private sub: number,
  ) {}

  /** Moves to the start of another stream of the same seed (no allocation: called once per draw and quantity). */
  reset(chain: number, iteration: number, purpose: Purpose, sub: number): this {
    this.chain = chain;
    this.iteration = iteration;
    this.purpose = purpose;
    this.sub = sub;
    this.block = 0;
    this.spareUniform = undefined;
    this.spareNormal = undefined;
    return this;
  }

  uniform(): number {
    if (this.spareUniform !== undefined) {
      const u = this.spareUniform;
      this.spareUniform = undefined;
      return u;
    }
    const w = this.next();
    this.spareUniform = uniformFromWords(w[2]!, w[3]!);
    return uniformFromWords(w[0]!, w[1]!);
  }

  normal(): number {
    if (this.spareNormal !== undefined) {
      const z = this.spareNormal;
      this.spareNormal = undefined;
      return z;
    }
    const w = this.next();
    const u0 = uniformFromWords(w[0]!, w[1]!);
    const u1 = uniformFromWords(w[2]!, w[3]!);
    this.spareNormal = boxMullerSin(u0, u1);
    return boxMullerCos(u0, u1);
  }

  private next(): Uint32Array {
    // The block index is one 32-bit counter word: past it the stream would repeat itself.
    if (this.block >= BLOCKS) throw new RangeError(`a random stream ran past its 2^32 blocks (chain ${this.chain}, iteration ${this.iteration}, purpose ${this.purpose}, sub ${this.sub})`);
    streamBlock(this.key, this.chain, this.iteration, this.purpose, this.sub, this.block++, this.words);
    return this.words;
  }
}

/** An Rng over the Philox stream (seed, chain, iteration, purpose, sub). */
export function streamRng(key: SeedKey, chain: number, iteration: number, purpose: Purpose, sub: number): StreamRng {
  return new StreamRng(key, chain, iteration, purpose, sub);
}

/**
 * An Rng from a seed alone, for draws outside a run (tests, a library caller's own simulations):
 * the Philox stream (seed, stream, 0, Purpose.Standalone, 0).
 */
export function philoxRng(seed: number, stream = 0): Rng {
  return new StreamRng(seedKey(seed), stream, 0, Purpose.Standalone, 0);
}

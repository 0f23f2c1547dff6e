/** Draws of one scalar quantity, indexed [chain][draw]. */
export type Draws = ReadonlyArray<ArrayLike<number>>;

/** Column-major view of draws: `chains` columns of `iterations` values each. */
export interface ChainMatrix {
  readonly chains: number;
  readonly iterations: number;
  /** Values laid out chain after chain: chain c occupies [c*iterations, (c+1)*iterations). */
  readonly values: Float64Array;
}

/** Checks that all chains have the same length and copies them into one matrix. */
export function toChainMatrix(draws: Draws): ChainMatrix {
  const chains = draws.length;
  if (chains === 0) {
    throw new Error("draws must contain at least one chain");
  }
  const iterations = draws[0]!.length;
  const values = new Float64Array(chains * iterations);
  for (let c = 0; c < chains; c++) {
    const chain = draws[c]!;
    if (chain.length !== iterations) {
      throw new Error(
        `all chains must have the same number of draws: chain 1 has ${iterations}, chain ${c + 1} has ${chain.length}`,
      );
    }
    for (let i = 0; i < iterations; i++) values[c * iterations + i] = chain[i]!;
  }
  return { chains, iterations, values };
}

/** Applies `f` to every value, keeping the chain layout. */
export function mapMatrix(m: ChainMatrix, f: (x: number) => number): ChainMatrix {
  const values = new Float64Array(m.values.length);
  for (let i = 0; i < values.length; i++) values[i] = f(m.values[i]!);
  return { chains: m.chains, iterations: m.iterations, values };
}

/** Returns the draws of chain `c` as a subarray (no copy). */
export function chainOf(m: ChainMatrix, c: number): Float64Array {
  return m.values.subarray(c * m.iterations, (c + 1) * m.iterations);
}

/**
 * True when posterior would answer NA: any non-finite value, or all values
 * equal to within machine epsilon (posterior's `should_return_NA`).
 */
export function shouldReturnNA(values: ArrayLike<number>): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) return true;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return Math.abs(max - min) < Number.EPSILON;
}

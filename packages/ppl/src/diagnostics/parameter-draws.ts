import { type ChainMatrix, type Draws, mapMatrix, shouldReturnNA, toChainMatrix } from "./draws.ts";
import { mean, sd } from "./moments.ts";
import { quantileSorted, sortedCopy } from "./quantile.ts";
import { rankNormalize, rankNormalizeOrdered } from "./rank-normalize.ts";
import { sortOrder } from "./sort-order.ts";
import { splitChains } from "./split-chains.ts";

/**
 * One parameter's draws and the intermediate results that its statistics share, each computed on
 * first use: the pooled draws sorted once (quantiles, the median, MCSE's order statistics and the
 * ranks), the split chains, the folded draws (ordered by merging the draws' own order) and the rank
 * normalizations that bulk-ESS and R-hat both use. Every value is the one the statistic computed on
 * its own before; only the work is shared.
 */
export class ParameterDraws {
  /** The draws as a chain matrix. */
  readonly matrix: ChainMatrix;
  #hasNaN: boolean | undefined;
  #returnsNA: boolean | undefined;
  #mean: number | undefined;
  #sd: number | undefined;
  #order: Uint32Array | undefined;
  #sorted: Float64Array | undefined;
  #split: ChainMatrix | undefined;
  #bulk: ChainMatrix | undefined;
  #folded: ChainMatrix | undefined;
  #foldedOrder: { order: Uint32Array; sorted: Float64Array } | null | undefined;
  #tail: ChainMatrix | undefined;

  constructor(matrix: ChainMatrix) {
    this.matrix = matrix;
  }

  /** The draws ([chain][draw]) of one parameter, checked and copied into a chain matrix. */
  static of(draws: Draws): ParameterDraws {
    return new ParameterDraws(toChainMatrix(draws));
  }

  /** True when any draw is NaN. */
  hasNaN(): boolean {
    if (this.#hasNaN === undefined) {
      const x = this.matrix.values;
      let found = false;
      for (let i = 0; i < x.length && !found; i++) found = Number.isNaN(x[i]!);
      this.#hasNaN = found;
    }
    return this.#hasNaN;
  }

  /** posterior's `should_return_NA` of the pooled draws (non-finite or constant). */
  returnsNA(): boolean {
    return (this.#returnsNA ??= shouldReturnNA(this.matrix.values));
  }

  /** Mean of the pooled draws. */
  mean(): number {
    return (this.#mean ??= mean(this.matrix.values));
  }

  /** Standard deviation of the pooled draws. */
  sd(): number {
    return (this.#sd ??= sd(this.matrix.values));
  }

  /** The pooled draws sorted ascending (NaN last), as `sortedCopy` sorts them. */
  sorted(): Float64Array {
    if (this.#sorted === undefined) {
      if (this.hasNaN()) {
        this.#sorted = sortedCopy(this.matrix.values);
      } else {
        // Without NaN the order is the numeric one, -0 before +0, which is the typed-array sort's.
        const x = this.matrix.values;
        const order = this.#pooledOrder();
        const sorted = new Float64Array(x.length);
        for (let k = 0; k < x.length; k++) sorted[k] = x[order[k]!]!;
        this.#sorted = sorted;
      }
    }
    return this.#sorted;
  }

  /** R's type 7 quantile of the pooled draws; NaN when a draw is NaN (as `quantile`). */
  quantile(p: number): number {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`quantile probability must be in [0, 1], got ${p}`);
    return this.hasNaN() ? NaN : quantileSorted(this.sorted(), p);
  }

  /** The chains split in halves (`splitChains`). */
  split(): ChainMatrix {
    return (this.#split ??= splitChains(this.matrix));
  }

  /** The split chains rank-normalized over all draws (`rankNormalize(split())`): what bulk-ESS and bulk R-hat take. */
  bulkNormalized(): ChainMatrix {
    if (this.#bulk === undefined) {
      // Split chains of even length hold exactly the pooled draws, laid out anew, so their
      // normal scores are the pooled draws' scores in the split layout.
      this.#bulk =
        this.hasNaN() || !this.#splitKeepsAll()
          ? rankNormalize(this.split())
          : splitChains(rankNormalizeOrdered(this.matrix, this.#pooledOrder()));
    }
    return this.#bulk;
  }

  /** The draws folded around their median, |x - median| (`foldDraws`). */
  folded(): ChainMatrix {
    if (this.#folded === undefined) {
      const center = this.quantile(0.5);
      this.#folded = mapMatrix(this.matrix, (x) => Math.abs(x - center));
    }
    return this.#folded;
  }

  /** The folded draws sorted ascending; null when a draw is NaN or the median infinite (the folded draws then hold NaN). */
  foldedSorted(): Float64Array | null {
    return this.#foldedOrdered()?.sorted ?? null;
  }

  /** The split folded draws rank-normalized (`rankNormalize(splitChains(folded()))`): what the tail R-hat takes. */
  tailNormalized(): ChainMatrix {
    if (this.#tail === undefined) {
      const ordered = this.#foldedOrdered();
      this.#tail =
        ordered === null || !this.#splitKeepsAll()
          ? rankNormalize(splitChains(this.folded()))
          : splitChains(rankNormalizeOrdered(this.folded(), ordered.order));
    }
    return this.#tail;
  }

  #pooledOrder(): Uint32Array {
    return (this.#order ??= sortOrder(this.matrix.values));
  }

  // |x - c| falls up to the median c and rises after it (exactly so in floating point: x - c is
  // monotone in x), so the folded draws' order is a merge of the draws' order read down from the
  // median and up from it.
  #foldedOrdered(): { order: Uint32Array; sorted: Float64Array } | null {
    if (this.#foldedOrder === undefined) {
      const center = this.quantile(0.5);
      if (!Number.isFinite(center)) {
        this.#foldedOrder = null;
      } else {
        const sorted = this.sorted();
        const order = this.#pooledOrder();
        const s = sorted.length;
        let below = 0;
        while (below < s && sorted[below]! < center) below++;
        const foldedOrder = new Uint32Array(s);
        const foldedSorted = new Float64Array(s);
        // i walks down from the last draw below the median, j up from the first at or above it.
        let i = below - 1;
        let j = below;
        for (let k = 0; k < s; k++) {
          const down = i >= 0 ? Math.abs(sorted[i]! - center) : Infinity;
          const up = j < s ? Math.abs(sorted[j]! - center) : Infinity;
          if (j >= s || (i >= 0 && down <= up)) {
            foldedOrder[k] = order[i]!;
            foldedSorted[k] = down;
            i--;
          } else {
            foldedOrder[k] = order[j]!;
            foldedSorted[k] = up;
            j++;
          }
        }
        this.#foldedOrder = { order: foldedOrder, sorted: foldedSorted };
      }
    }
    return this.#foldedOrder;
  }

  // Whether splitting kept every draw (it drops each chain's middle draw when the length is odd).
  #splitKeepsAll(): boolean {
    return this.split().values.length === this.matrix.values.length;
  }
}

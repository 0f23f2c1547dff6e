/**
 * The generalized no-U-turn criterion (Betancourt 2017) as Stan ≥ 2.21 applies
 * it, in iterative form.
 *
 * A stretch of trajectory with summed momentum ρ and sharp momenta p♯ = M⁻¹p
 * at its two ends keeps going while p♯₋·ρ > 0 and p♯₊·ρ > 0. Stan checks this
 * for every subtree that recursion merges (init half + final half) and, in
 * addition, across the seam of every merge: (ρ_init + p_final_begin) with the
 * sharp momenta at the init's begin and the final's begin, and
 * (ρ_final + p_init_end) with those at the init's end and the final's end.
 *
 * Recursion is replaced by checkpoints indexed by level k (blocks of 2ᵏ
 * leaves): when leaf n of a subtree arrives, it opens the level-k blocks with
 * n mod 2ᵏ = 0, is the first leaf of the final half of the level tz(n)+1 block,
 * and closes the level-k blocks for k = 1 … (trailing ones of n). Running
 * prefix sums of momentum give every block's ρ as a difference.
 */

/** p♯₋·ρ > 0 and p♯₊·ρ > 0. */
export function noUTurn(sharpMinus: Float64Array, sharpPlus: Float64Array, rho: Float64Array): boolean {
  let a = 0;
  let b = 0;
  for (let i = 0; i < rho.length; i++) {
    a += sharpMinus[i]! * rho[i]!;
    b += sharpPlus[i]! * rho[i]!;
  }
  return a > 0 && b > 0;
}

/** Number of trailing zero bits of a positive 32-bit integer. */
function trailingZeros(n: number): number {
  return 31 - Math.clz32(n & -n);
}

/** maxDepth views of length dim into one flat checkpoint array, made once. */
function levelViews(flat: Float64Array, dim: number, levels: number): Float64Array[] {
  const views: Float64Array[] = [];
  for (let k = 0; k < levels; k++) views.push(flat.subarray(k * dim, (k + 1) * dim));
  return views;
}

/**
 * U-turn checks of all sub-subtrees of one subtree being built leaf by leaf,
 * with checkpoint arrays of size maxDepth × dim (no recursion, no allocation).
 */
export class SubtreeTermination {
  readonly dim: number;
  readonly maxDepth: number;
  /** Summed momentum of the leaves added so far. */
  readonly rho: Float64Array;
  /** Momentum and p♯ of the subtree's first leaf (the end nearest the old trajectory). */
  readonly firstP: Float64Array;
  readonly firstSharp: Float64Array;
  private depth = 0;
  // Checkpoints per level k = 1 … maxDepth (index k − 1), one flat array each.
  private readonly startSharp: Float64Array[]; // p♯ at the block's first leaf
  private readonly startPrefix: Float64Array[]; // ρ before the block's first leaf
  private readonly midPrefix: Float64Array[]; // ρ before the final half's first leaf
  private readonly midP: Float64Array[]; // p at the final half's first leaf
  private readonly midSharp: Float64Array[];
  private readonly midPrevP: Float64Array[]; // p at the init half's last leaf
  private readonly midPrevSharp: Float64Array[];

  constructor(dim: number, maxDepth: number) {
    this.dim = dim;
    this.maxDepth = maxDepth;
    const levels = Math.max(1, maxDepth);
    const checkpoints = (): Float64Array[] => levelViews(new Float64Array(levels * dim), dim, levels);
    this.rho = new Float64Array(dim);
    this.firstP = new Float64Array(dim);
    this.firstSharp = new Float64Array(dim);
    this.startSharp = checkpoints();
    this.startPrefix = checkpoints();
    this.midPrefix = checkpoints();
    this.midP = checkpoints();
    this.midSharp = checkpoints();
    this.midPrevP = checkpoints();
    this.midPrevSharp = checkpoints();
  }

  /** Starts a subtree of 2^depth leaves. */
  reset(depth: number): void {
    if (depth < 0 || depth > this.maxDepth) throw new RangeError(`subtree depth ${depth} outside 0…${this.maxDepth}`);
    this.depth = depth;
    this.rho.fill(0);
  }

  /**
   * Adds leaf n (0-based, in the order built) with momentum p and sharp
   * momentum M⁻¹p. Returns false when a block that this leaf completes
   * (including the whole subtree) fails the criterion or a seam check.
   */
  addLeaf(n: number, p: Float64Array, sharp: Float64Array): boolean {
    const dim = this.dim;
    const rho = this.rho;
    if (n === 0) {
      this.firstP.set(p);
      this.firstSharp.set(sharp);
    } else {
      // This leaf begins the final half of the level tz(n)+1 block.
      const k = trailingZeros(n);
      this.midPrefix[k]!.set(rho);
      this.midP[k]!.set(p);
      this.midSharp[k]!.set(sharp);
      // midPrevP[k] and midPrevSharp[k] (the previous leaf) were written when that leaf was added.
    }
    // Levels whose blocks start here: all of them at n = 0, else 1 … tz(n).
    const opened = n === 0 ? this.depth : Math.min(trailingZeros(n), this.depth);
    for (let k = 0; k < opened; k++) {
      this.startSharp[k]!.set(sharp);
      this.startPrefix[k]!.set(rho);
    }
    for (let i = 0; i < dim; i++) rho[i] = rho[i]! + p[i]!;

    // Levels whose blocks end here: 1 … trailing ones of n.
    const closed = Math.min(trailingZeros(n + 1), this.depth);
    // Each criterion is noUTurn(a, b, ρ) with ρ formed element by element inside the dot products
    // (one pass, nothing stored): the same sums in the same order as forming ρ first.
    for (let k = 0; k < closed; k++) {
      const startSharp = this.startSharp[k]!;
      const startPrefix = this.startPrefix[k]!;
      const midPrefix = this.midPrefix[k]!;
      const midP = this.midP[k]!;
      const midSharp = this.midSharp[k]!;
      const midPrevP = this.midPrevP[k]!;
      const midPrevSharp = this.midPrevSharp[k]!;
      // Whole block: ρ = ρ_now − ρ_before_start.
      let a = 0;
      let b = 0;
      for (let i = 0; i < dim; i++) {
        const r = rho[i]! - startPrefix[i]!;
        a += startSharp[i]! * r;
        b += sharp[i]! * r;
      }
      if (!(a > 0 && b > 0)) return false;
      // Seam 1: ρ_init + p_final_begin, between the block's begin and the final's begin.
      a = 0;
      b = 0;
      for (let i = 0; i < dim; i++) {
        const r = midPrefix[i]! - startPrefix[i]! + midP[i]!;
        a += startSharp[i]! * r;
        b += midSharp[i]! * r;
      }
      if (!(a > 0 && b > 0)) return false;
      // Seam 2: ρ_final + p_init_end, between the init's end and the block's end.
      a = 0;
      b = 0;
      for (let i = 0; i < dim; i++) {
        const r = rho[i]! - midPrefix[i]! + midPrevP[i]!;
        a += midPrevSharp[i]! * r;
        b += sharp[i]! * r;
      }
      if (!(a > 0 && b > 0)) return false;
    }
    // This leaf is the init half's last leaf of the block whose final half the next leaf begins:
    // stored there directly, which no leaf before the next one reads or overwrites.
    const next = n + 1;
    if (next < 1 << this.depth) {
      const k = trailingZeros(next);
      this.midPrevP[k]!.set(p);
      this.midPrevSharp[k]!.set(sharp);
    }
    return true;
  }
}

/**
 * Top-level check after merging a new subtree onto the trajectory (Stan's
 * transition loop): the whole trajectory, and the two seams. "Outer" is the
 * far end of each piece, "inner" the ends that now touch. scratch has length dim.
 */
export function mergedTrajectoryContinues(
  rhoOld: Float64Array,
  oldOuterSharp: Float64Array,
  oldInnerP: Float64Array,
  oldInnerSharp: Float64Array,
  rhoNew: Float64Array,
  newInnerP: Float64Array,
  newInnerSharp: Float64Array,
  newOuterSharp: Float64Array,
  scratch: Float64Array,
): boolean {
  // As in addLeaf, each ρ is formed inside its dot products; scratch gives the length.
  const n = scratch.length;
  let a = 0;
  let b = 0;
  for (let i = 0; i < n; i++) {
    const r = rhoOld[i]! + rhoNew[i]!;
    a += oldOuterSharp[i]! * r;
    b += newOuterSharp[i]! * r;
  }
  if (!(a > 0 && b > 0)) return false;
  a = 0;
  b = 0;
  for (let i = 0; i < n; i++) {
    const r = rhoOld[i]! + newInnerP[i]!;
    a += oldOuterSharp[i]! * r;
    b += newInnerSharp[i]! * r;
  }
  if (!(a > 0 && b > 0)) return false;
  a = 0;
  b = 0;
  for (let i = 0; i < n; i++) {
    const r = rhoNew[i]! + oldInnerP[i]!;
    a += oldInnerSharp[i]! * r;
    b += newOuterSharp[i]! * r;
  }
  return a > 0 && b > 0;
}

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
  private readonly prevP: Float64Array; // the previous leaf
  private readonly prevSharp: Float64Array;
  private readonly scratch: Float64Array;

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
    this.prevP = new Float64Array(dim);
    this.prevSharp = new Float64Array(dim);
    this.scratch = new Float64Array(dim);
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
      this.midPrevP[k]!.set(this.prevP);
      this.midPrevSharp[k]!.set(this.prevSharp);
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
    const r = this.scratch;
    for (let k = 0; k < closed; k++) {
      const startSharp = this.startSharp[k]!;
      const startPrefix = this.startPrefix[k]!;
      const midPrefix = this.midPrefix[k]!;
      const midP = this.midP[k]!;
      const midPrevP = this.midPrevP[k]!;
      // Whole block: ρ = ρ_now − ρ_before_start.
      for (let i = 0; i < dim; i++) r[i] = rho[i]! - startPrefix[i]!;
      if (!noUTurn(startSharp, sharp, r)) return false;
      // Seam 1: ρ_init + p_final_begin, between the block's begin and the final's begin.
      for (let i = 0; i < dim; i++) r[i] = midPrefix[i]! - startPrefix[i]! + midP[i]!;
      if (!noUTurn(startSharp, this.midSharp[k]!, r)) return false;
      // Seam 2: ρ_final + p_init_end, between the init's end and the block's end.
      for (let i = 0; i < dim; i++) r[i] = rho[i]! - midPrefix[i]! + midPrevP[i]!;
      if (!noUTurn(this.midPrevSharp[k]!, sharp, r)) return false;
    }
    this.prevP.set(p);
    this.prevSharp.set(sharp);
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
  const n = scratch.length;
  for (let i = 0; i < n; i++) scratch[i] = rhoOld[i]! + rhoNew[i]!;
  if (!noUTurn(oldOuterSharp, newOuterSharp, scratch)) return false;
  for (let i = 0; i < n; i++) scratch[i] = rhoOld[i]! + newInnerP[i]!;
  if (!noUTurn(oldOuterSharp, newInnerSharp, scratch)) return false;
  for (let i = 0; i < n; i++) scratch[i] = rhoNew[i]! + oldInnerP[i]!;
  return noUTurn(oldInnerSharp, newOuterSharp, scratch);
}

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
import { copyVector } from "./linalg.ts";

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
 * The U-turn checks' state of the subtree being built leaf by leaf: common.glsl's t_* vectors and
 * checkpoint tables (nuts-layout.ts's CHECKPOINT_TABLES), by the same names without the prefix,
 * each table maxDepth views of length dim into one flat array (no recursion, no allocation).
 */
export interface TerminationState {
  readonly dim: number;
  readonly maxDepth: number;
  /** Depth of the subtree being built: it has 2^depth leaves. */
  depth: number;
  /** Summed momentum of the leaves added so far (t_rho). */
  readonly rho: Float64Array;
  /** Momentum and p♯ of the subtree's first leaf, the end nearest the old trajectory (t_firstP, t_firstSharp). */
  readonly firstP: Float64Array;
  readonly firstSharp: Float64Array;
  // Checkpoints per level k = 1 … maxDepth (index k − 1).
  /** p♯ at the block's first leaf. */
  readonly startSharp: readonly Float64Array[];
  /** ρ before the block's first leaf. */
  readonly startPrefix: readonly Float64Array[];
  /** ρ before the final half's first leaf. */
  readonly midPrefix: readonly Float64Array[];
  /** p and p♯ at the final half's first leaf. */
  readonly midP: readonly Float64Array[];
  readonly midSharp: readonly Float64Array[];
  /**
   * p and p♯ at the init half's last leaf. common.glsl keeps the previous leaf in t_prevP and
   * t_prevSharp and copies them here at the next leaf; addLeaf stores them here directly (one copy
   * fewer per leaf), which no leaf before the next one reads or overwrites.
   */
  readonly midPrevP: readonly Float64Array[];
  readonly midPrevSharp: readonly Float64Array[];
}

/** The termination state for subtrees of up to 2^maxDepth leaves in dimension dim, allocated once. */
export function initTermination(dim: number, maxDepth: number): TerminationState {
  const levels = Math.max(1, maxDepth);
  const checkpoints = (): Float64Array[] => levelViews(new Float64Array(levels * dim), dim, levels);
  return {
    dim,
    maxDepth,
    depth: 0,
    rho: new Float64Array(dim),
    firstP: new Float64Array(dim),
    firstSharp: new Float64Array(dim),
    startSharp: checkpoints(),
    startPrefix: checkpoints(),
    midPrefix: checkpoints(),
    midP: checkpoints(),
    midSharp: checkpoints(),
    midPrevP: checkpoints(),
    midPrevSharp: checkpoints(),
  };
}

/** Starts a subtree of 2^depth leaves (begin_subtree's t_rho = 0). */
export function resetTermination(t: TerminationState, depth: number): void {
  if (depth < 0 || depth > t.maxDepth) throw new RangeError(`subtree depth ${depth} outside 0…${t.maxDepth}`);
  t.depth = depth;
  t.rho.fill(0);
}

/**
 * Adds leaf n (0-based, in the order built) with momentum p and sharp momentum M⁻¹p (common.glsl's
 * add_leaf). Returns false when a block that this leaf completes (including the whole subtree)
 * fails the criterion or a seam check.
 */
export function addLeaf(t: TerminationState, n: number, p: Float64Array, sharp: Float64Array): boolean {
  const { dim, rho, depth } = t;
  if (n === 0) {
    copyVector(t.firstP, p);
    copyVector(t.firstSharp, sharp);
  } else {
    // This leaf begins the final half of the level tz(n)+1 block.
    const k = trailingZeros(n);
    copyVector(t.midPrefix[k]!, rho);
    copyVector(t.midP[k]!, p);
    copyVector(t.midSharp[k]!, sharp);
    // midPrevP[k] and midPrevSharp[k] (the previous leaf) were written when that leaf was added.
  }
  // Levels whose blocks start here: all of them at n = 0, else 1 … tz(n).
  const opened = n === 0 ? depth : Math.min(trailingZeros(n), depth);
  for (let k = 0; k < opened; k++) {
    copyVector(t.startSharp[k]!, sharp);
    copyVector(t.startPrefix[k]!, rho);
  }
  for (let i = 0; i < dim; i++) rho[i] = rho[i]! + p[i]!;

  // Levels whose blocks end here: 1 … trailing ones of n.
  const closed = Math.min(trailingZeros(n + 1), depth);
  // Each criterion is noUTurn(a, b, ρ) with ρ formed element by element inside the dot products
  // (one pass, nothing stored): the same sums in the same order as forming ρ first.
  for (let k = 0; k < closed; k++) {
    const startSharp = t.startSharp[k]!;
    const startPrefix = t.startPrefix[k]!;
    const midPrefix = t.midPrefix[k]!;
    const midP = t.midP[k]!;
    const midSharp = t.midSharp[k]!;
    const midPrevP = t.midPrevP[k]!;
    const midPrevSharp = t.midPrevSharp[k]!;
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
  // This leaf is the init half's last leaf of the block whose final half the next leaf begins.
  const next = n + 1;
  if (next < 1 << depth) {
    const k = trailingZeros(next);
    copyVector(t.midPrevP[k]!, p);
    copyVector(t.midPrevSharp[k]!, sharp);
  }
  return true;
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

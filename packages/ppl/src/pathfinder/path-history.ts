/**
 * What Pathfinder keeps of an L-BFGS path to form its approximations: the last `historySize`
 * pairs s = Δx, y = Δg whose curvature is tame, and the diagonal α of the inverse-Hessian
 * estimate, updated with each kept pair by Gilbert & Lemaréchal's formula (1989, eq. 4.9; the
 * Pathfinder paper's Algorithm 3), starting from ones as Stan's does.
 */

/** Stan's curvature check: a pair is kept when sᵀy > 0 and yᵀy / sᵀy ≤ 1e12, i.e. sᵀy ≥ 1e-12·‖y‖². */
export const CURVATURE_BOUND = 1e12;

/** The pairs kept (oldest first) and the diagonal estimate. */
export interface PathHistory {
  readonly s: readonly Float64Array[];
  readonly y: readonly Float64Array[];
  readonly alpha: Float64Array;
}

/** The history before the first step: no pairs, α = 1. */
export function emptyHistory(dim: number): PathHistory {
  return { s: [], y: [], alpha: new Float64Array(dim).fill(1) };
}

/** Whether the pair's curvature passes Stan's check (a pair that fails is skipped, as in the paper's Algorithm 1). */
export function curvatureOk(s: Float64Array, y: Float64Array): boolean {
  const sy = dot(s, y);
  return sy > 0 && dot(y, y) / sy <= CURVATURE_BOUND;
}

/** The history with the pair (s, y) added, the oldest dropped past `historySize`; unchanged when the pair fails the curvature check. */
export function pushPair(h: PathHistory, s: Float64Array, y: Float64Array, historySize: number): PathHistory {
  if (!curvatureOk(s, y)) return h;
  const alpha = updateDiagonal(h.alpha, s, y);
  const keep = <T>(a: readonly T[]): T[] => a.slice(Math.max(0, a.length - historySize));
  return { s: keep([...h.s, s]), y: keep([...h.y, y]), alpha };
}

/**
 * Gilbert & Lemaréchal's diagonal update: α′ᵢ = sᵀy / (yᵀαy/αᵢ + yᵢ² − (yᵀαy / sᵀα⁻¹s)(sᵢ/αᵢ)²).
 * A result that is not finite and positive everywhere (rounding on a nearly flat direction) leaves
 * α as it was, so that H stays positive definite.
 */
export function updateDiagonal(alpha: Float64Array, s: Float64Array, y: Float64Array): Float64Array {
  const n = alpha.length;
  let yay = 0;
  let sas = 0;
  for (let i = 0; i < n; i++) {
    yay += y[i]! * alpha[i]! * y[i]!;
    sas += s[i]! * s[i]! / alpha[i]!;
  }
  const sy = dot(s, y);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = sy / (yay / alpha[i]! + y[i]! ** 2 - (yay / sas) * (s[i]! / alpha[i]!) ** 2);
  return out.every((a) => Number.isFinite(a) && a > 0) ? out : alpha;
}

function dot(a: Float64Array, b: Float64Array): number {
  let t = 0;
  for (let i = 0; i < a.length; i++) t += a[i]! * b[i]!;
  return t;
}

/**
 * General dense linear algebra of one matrix at a time, shared by the reference interpreter and the
 * compiled CPU backend (which call these very functions), and mirrored operation for operation by
 * the GLSL units (packages/vulkan/src/codegen/linalg-units.ts). All arithmetic is in f64; callers
 * round to the node's dtype.
 *
 * - LU with partial pivoting (Doolittle, right-looking): at step k the row with the largest |w_ik|,
 *   i ≥ k, becomes the pivot row (the first such row on ties, and the current row when it is NaN).
 *   A zero pivot leaves its column alone, as LAPACK's getrf does: the factor is still exact, U is
 *   singular, and solves divide by that zero (giving ±inf or NaN) while log|det| is −inf.
 * - Symmetric eigendecomposition by cyclic Jacobi rotations on (A + Aᵀ)/2: exact to rounding for
 *   any spectrum, and simple enough to run in one GPU thread at posterior sizes (n up to ~50).
 */

/** Most Jacobi sweeps; quadratic convergence needs well under ten for n ≤ 100 in f64. */
export const JACOBI_MAX_SWEEPS = 30;

// Scratch of the factorizations, grown on demand (one thread per module instance: no sharing).
let scratch = new Float64Array(64);
let pivots = new Int32Array(8);
let vectors = new Float64Array(64);

function work(n: number): { w: Float64Array; piv: Int32Array } {
  if (scratch.length < n * n) scratch = new Float64Array(n * n);
  if (pivots.length < n) pivots = new Int32Array(n);
  return { w: scratch, piv: pivots };
}

/**
 * Factor the n×n row-major matrix in w in place into L (unit lower, below the diagonal) and U, with
 * the pivot row of step k in piv[k]. Returns the sign of the permutation (±1).
 */
function luInPlace(w: Float64Array, n: number, piv: Int32Array): number {
  let parity = 1;
  for (let k = 0; k < n; k++) {
    let p = k, best = Math.abs(w[k * n + k]!);
    for (let i = k + 1; i < n; i++) {
      const v = Math.abs(w[i * n + k]!);
      if (v > best) {
        best = v;
        p = i;
      }
    }
    piv[k] = p;
    if (p !== k) {
      parity = -parity;
      for (let j = 0; j < n; j++) {
        const t = w[k * n + j]!;
        w[k * n + j] = w[p * n + j]!;
        w[p * n + j] = t;
      }
    }
    const d = w[k * n + k]!;
    if (d === 0) continue;
    for (let i = k + 1; i < n; i++) {
      const l = w[i * n + k]! / d;
      w[i * n + k] = l;
      for (let j = k + 1; j < n; j++) w[i * n + j] = w[i * n + j]! - l * w[k * n + j]!;
    }
  }
  return parity;
}

/**
 * X = A⁻¹B for the n×n matrix at a[ao] and the n×m right-hand sides at b[bo], written to out[oo]
 * (all row-major). Each column gets the arithmetic of Gaussian elimination of [A | b] (the GPU's
 * order, each right-hand entry moving with its row): the same updates of each row in the same order,
 * then back substitution from the last row.
 */
export function luSolveMatrix(
  a: ArrayLike<number>, ao: number, b: ArrayLike<number>, bo: number, out: { [i: number]: number }, oo: number, n: number, m: number,
): void {
  const { w, piv } = work(n);
  for (let f = 0; f < n * n; f++) w[f] = a[ao + f]!;
  luInPlace(w, n, piv);
  for (let c = 0; c < m; c++) {
    for (let i = 0; i < n; i++) out[oo + i * m + c] = b[bo + i * m + c]!;
    // All the swaps first: the multipliers in w sit in their rows' final places.
    for (let k = 0; k < n; k++) {
      const p = piv[k]!;
      if (p !== k) {
        const t = out[oo + k * m + c]!;
        out[oo + k * m + c] = out[oo + p * m + c]!;
        out[oo + p * m + c] = t;
      }
    }
    for (let k = 0; k < n; k++) {
      if (w[k * n + k] === 0) continue;
      const yk = out[oo + k * m + c]!;
      for (let i = k + 1; i < n; i++) out[oo + i * m + c] = out[oo + i * m + c]! - w[i * n + k]! * yk;
    }
    for (let i = n - 1; i >= 0; i--) {
      let v = out[oo + i * m + c]!;
      for (let j = n - 1; j > i; j--) v -= w[i * n + j]! * out[oo + j * m + c]!;
      out[oo + i * m + c] = v / w[i * n + i]!;
    }
  }
}

/**
 * sign(det A) and log|det A| of the n×n matrix at a[ao], written to out[oo] and out[oo + 1]: the
 * permutation's sign times the signs of U's diagonal, and the sum of log|u_kk| in k order. A singular
 * matrix gives sign 0 and log|det| −inf; a NaN entry gives NaN for both.
 */
export function slogdetMatrix(a: ArrayLike<number>, ao: number, out: { [i: number]: number }, oo: number, n: number): void {
  const { w, piv } = work(n);
  for (let f = 0; f < n * n; f++) w[f] = a[ao + f]!;
  let sign = luInPlace(w, n, piv), logAbs = 0;
  for (let k = 0; k < n; k++) {
    const d = w[k * n + k]!;
    sign = d > 0 ? sign : d < 0 ? -sign : d === 0 ? 0 : NaN;
    logAbs += Math.log(Math.abs(d));
  }
  out[oo] = sign;
  out[oo + 1] = logAbs;
}

/**
 * Eigenvalues (ascending) and unit eigenvectors of the symmetric part (A + Aᵀ)/2 of the n×n matrix at
 * a[ao], written to out[oo] as an (n+1)×n row-major block: rows 0…n−1 hold the eigenvectors as
 * columns, row n the eigenvalues. Each eigenvector's entry of largest magnitude (the first on ties)
 * is positive, so the result is a function of A. A pair (p, q) is rotated unless
 * |a_pq| ≤ eps·max(√|a_pp|·√|a_qq|, max_ij |a_ij|); sweeps end when one rotates nothing. A
 * non-finite entry gives NaN throughout.
 */
export function eighMatrix(a: ArrayLike<number>, ao: number, out: { [i: number]: number }, oo: number, n: number, eps = 2 ** -52): void {
  const { w } = work(n);
  if (vectors.length < n * n) vectors = new Float64Array(n * n);
  const v = vectors;
  let scale = 0, finite = true;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const x = (a[ao + i * n + j]! + a[ao + j * n + i]!) * 0.5;
      w[i * n + j] = x;
      finite = finite && Number.isFinite(x);
      scale = Math.abs(x) > scale ? Math.abs(x) : scale;
      v[i * n + j] = i === j ? 1 : 0;
    }
  }
  if (!finite) {
    for (let f = 0; f < (n + 1) * n; f++) out[oo + f] = NaN;
    return;
  }
  for (let sweep = 0; sweep < JACOBI_MAX_SWEEPS; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = w[p * n + q]!, app = w[p * n + p]!, aqq = w[q * n + q]!;
        const floor = Math.sqrt(Math.abs(app)) * Math.sqrt(Math.abs(aqq));
        if (Math.abs(apq) <= eps * (floor > scale ? floor : scale)) continue;
        rotated = true;
        // The rotation that zeroes a_pq, through its smaller angle (Rutishauser's formulas).
        const theta = (aqq - app) / (2 * apq);
        const t0 = 1 / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const t = theta < 0 ? -t0 : t0;
        const c = 1 / Math.sqrt(t * t + 1), s = t * c;
        w[p * n + p] = app - t * apq;
        w[q * n + q] = aqq + t * apq;
        w[p * n + q] = 0;
        w[q * n + p] = 0;
        for (let k = 0; k < n; k++) {
          if (k !== p && k !== q) {
            const g = w[k * n + p]!, h = w[k * n + q]!;
            const gp = c * g - s * h, hq = s * g + c * h;
            w[k * n + p] = gp;
            w[p * n + k] = gp;
            w[k * n + q] = hq;
            w[q * n + k] = hq;
          }
          const g = v[k * n + p]!, h = v[k * n + q]!;
          v[k * n + p] = c * g - s * h;
          v[k * n + q] = s * g + c * h;
        }
      }
    }
    if (!rotated) break;
  }
  for (let i = 0; i < n; i++) {
    // Rank of eigenvalue i in ascending order, ties by index: a permutation, computed the same way on the GPU.
    const d = w[i * n + i]!;
    let rank = 0;
    for (let j = 0; j < n; j++) {
      const e = w[j * n + j]!;
      if (e < d || (e === d && j < i)) rank++;
    }
    let big = 0, at = 0;
    for (let k = 0; k < n; k++) {
      const x = Math.abs(v[k * n + i]!);
      if (x > big) {
        big = x;
        at = k;
      }
    }
    const flip = v[at * n + i]! < 0 ? -1 : 1;
    for (let k = 0; k < n; k++) out[oo + k * n + rank] = flip * v[k * n + i]!;
    out[oo + n * n + rank] = d;
  }
}

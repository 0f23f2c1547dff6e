/** Dense symmetric matrices as row-major Float64Arrays of n·n entries, for the few small solves the optimizers make. */

/** The lower Cholesky factor L of a symmetric positive-definite A (A = L Lᵀ), or null where A is not positive definite. */
export function cholesky(a: Float64Array, n: number): Float64Array | null {
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let s = a[j * n + j]!;
    for (let k = 0; k < j; k++) s -= l[j * n + k]! ** 2;
    if (!(s > 0) || !Number.isFinite(s)) return null;
    const d = Math.sqrt(s);
    l[j * n + j] = d;
    for (let i = j + 1; i < n; i++) {
      let t = a[i * n + j]!;
      for (let k = 0; k < j; k++) t -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = t / d;
    }
  }
  return l;
}

/** Solves Lᵀ x = b for x, with L lower triangular (a draw z ↦ Lᵀ⁻¹ z has covariance (L Lᵀ)⁻¹). */
export function solveUpper(l: Float64Array, n: number, b: Float64Array): Float64Array {
  const x = Float64Array.from(b);
  for (let i = n - 1; i >= 0; i--) {
    let s = x[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

/**
 * The eigenvalues and eigenvectors of a symmetric matrix by cyclic Jacobi rotations (Golub & Van
 * Loan, Matrix Computations, §8.5): accurate for the small Hessians here, and without a library.
 * Returns the values and the vectors as the columns of a row-major n·n matrix.
 */
export function symmetricEigen(a: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const m = Float64Array.from(a);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) off += m[i * n + j]! ** 2;
    if (off === 0 || !Number.isFinite(off)) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = m[p * n + q]!;
        if (apq === 0) continue;
        const theta = (m[q * n + q]! - m[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        rotate(m, v, n, p, q, c, s);
      }
    }
  }
  const values = new Float64Array(n);
  for (let i = 0; i < n; i++) values[i] = m[i * n + i]!;
  return { values, vectors: v };
}

// Applies the rotation J(p, q, θ) on both sides of m (Jᵀ m J) and on the right of v.
function rotate(m: Float64Array, v: Float64Array, n: number, p: number, q: number, c: number, s: number): void {
  for (let k = 0; k < n; k++) {
    const mkp = m[k * n + p]!;
    const mkq = m[k * n + q]!;
    m[k * n + p] = c * mkp - s * mkq;
    m[k * n + q] = s * mkp + c * mkq;
  }
  for (let k = 0; k < n; k++) {
    const mpk = m[p * n + k]!;
    const mqk = m[q * n + k]!;
    m[p * n + k] = c * mpk - s * mqk;
    m[q * n + k] = s * mpk + c * mqk;
  }
  for (let k = 0; k < n; k++) {
    const vkp = v[k * n + p]!;
    const vkq = v[k * n + q]!;
    v[k * n + p] = c * vkp - s * vkq;
    v[k * n + q] = s * vkp + c * vkq;
  }
}

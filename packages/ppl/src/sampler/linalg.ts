/**
 * The little dense linear algebra the metric needs, on row-major
 * Float64Arrays of n×n, written as plain loops (a shader does the same).
 */

/**
 * In-place lower Cholesky factor: on return a holds L (upper part zeroed) with
 * A = L·Lᵀ. Returns false when A is not (numerically) positive definite.
 */
export function choleskyInPlace(a: Float64Array, n: number): boolean {
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j]!;
    for (let k = 0; k < j; k++) d -= a[j * n + k]! * a[j * n + k]!;
    if (!(d > 0) || !Number.isFinite(d)) return false;
    const ljj = Math.sqrt(d);
    a[j * n + j] = ljj;
    for (let i = j + 1; i < n; i++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= a[i * n + k]! * a[j * n + k]!;
      a[i * n + j] = s / ljj;
    }
    for (let k = j + 1; k < n; k++) a[j * n + k] = 0;
  }
  return true;
}

/** Solves Lᵀ·x = b for x (L lower triangular, row-major), writing x to out. */
export function solveLowerTransposed(l: Float64Array, n: number, b: Float64Array, out: Float64Array): void {
  for (let i = n - 1; i >= 0; i--) {
    let s = b[i]!;
    // Row i of Lᵀ is column i of L.
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * out[k]!;
    out[i] = s / l[i * n + i]!;
  }
}

/** out = A·x for a row-major n×n matrix A. */
export function matVec(a: Float64Array, n: number, x: Float64Array, out: Float64Array): void {
  for (let i = 0; i < n; i++) {
    let s = 0;
    const row = i * n;
    for (let k = 0; k < n; k++) s += a[row + k]! * x[k]!;
    out[i] = s;
  }
}

/** Dot product of two vectors of equal length. */
export function dot(a: Float64Array, b: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * dst[i] = src[i] for every i of src. The tree's copies are of one chain's position, momentum or
 * gradient: for a handful of values a plain loop, which the optimiser inlines (TypedArray.set, a
 * builtin call with its own checks, took about 40 ns a copy of 5 against 11–15 for the loop);
 * longer vectors keep set's block copy.
 */
export function copyVector(dst: Float64Array, src: Float64Array): void {
  const n = src.length;
  if (n > 32) {
    dst.set(src);
    return;
  }
  for (let i = 0; i < n; i++) dst[i] = src[i]!;
}

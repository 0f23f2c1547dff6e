import { abs, and, constant, diagonal, eq, gt, le, log, max, min, mT, mul, reshape, sub, sum, triangularSolve, type Node } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import type { Rng } from "../random/rng.ts";
import { gammaVariate } from "./variates.ts";

/**
 * Matrix helpers of the matrix-variate distributions: small dense algebra on row-major
 * Float64Arrays for their samplers, and support tests as graphs for their densities.
 */

/** The Bartlett factor of a Wishart(nu, I) draw W = A Aᵀ: lower triangular, A_ii² ~ χ²(nu − i) (0-based i), A_ij ~ N(0, 1) below. */
export function bartlettFactor(rng: Rng, nu: number, k: number): Float64Array {
  const a = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    a[i * k + i] = Math.sqrt(2 * gammaVariate(rng, (nu - i) / 2));
    for (let j = 0; j < i; j++) a[i * k + j] = rng.normal();
  }
  return a;
}

/** a b for n×n matrices. */
export function matMulNumbers(a: ArrayLike<number>, b: ArrayLike<number>, n: number): Float64Array {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k]!;
      if (aik === 0) continue;
      for (let j = 0; j < n; j++) c[i * n + j]! += aik * b[k * n + j]!;
    }
  }
  return c;
}

/** b bᵀ for an n×n matrix b. */
export function outerSelf(b: ArrayLike<number>, n: number): Float64Array {
  const c = new Float64Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += b[i * n + k]! * b[j * n + k]!;
      c[i * n + j] = s;
      c[j * n + i] = s;
    }
  }
  return c;
}

/** The inverse of a lower-triangular n×n matrix (lower triangular too), by forward substitution. */
export function lowerInverse(l: ArrayLike<number>, n: number): Float64Array {
  const inv = new Float64Array(n * n);
  for (let c = 0; c < n; c++) {
    for (let i = c; i < n; i++) {
      let s = i === c ? 1 : 0;
      for (let k = c; k < i; k++) s -= l[i * n + k]! * inv[k * n + c]!;
      inv[i * n + c] = s / l[i * n + i]!;
    }
  }
  return inv;
}

/** The transpose of an n×n matrix. */
export function transposeNumbers(a: ArrayLike<number>, n: number): Float64Array {
  const t = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) t[j * n + i] = a[i * n + j]!;
  return t;
}

// Relative tolerance of the symmetry and unit-diagonal tests: Stan's 1e−8 would reject a matrix that
// f32 rounding (a GPU run's default) left asymmetric in its last bit, so the tests allow 1e−6.
const MATRIX_TOLERANCE = 1e-6;

/** True (per matrix of x, last two axes) where x equals its transpose to within 1e−6 of its largest entry. */
export function isSymmetric(x: Node): Node {
  const scale = max(abs(x), [-2, -1]);
  return le(max(abs(sub(x, mT(x))), [-2, -1]), mul(MATRIX_TOLERANCE, scale));
}

/** True (per matrix) where x is lower triangular with a positive diagonal: a Cholesky factor. */
export function isCholeskyFactor(x: Node, k: number): Node {
  const upper = constant(Array.from({ length: k * k }, (_, i) => (i % k > Math.floor(i / k) ? 1 : 0)), [k, k]);
  const above = sum(abs(mul(x, upper)), [-2, -1]);
  return and(eq(above, 0), gt(min(diagonal(x), -1), 0));
}

/** True (per matrix) where x has a unit diagonal (to within 1e−6): a correlation matrix, with symmetry and definiteness checked apart. */
export function hasUnitDiagonal(x: Node): Node {
  return le(max(abs(sub(diagonal(x), 1)), -1), MATRIX_TOLERANCE);
}

/** ‖L⁻¹ B‖²_F per matrix: tr((L Lᵀ)⁻¹ B Bᵀ), the trace terms of the Wishart densities. */
export function traceSolve(l: Node, b: Node): Node {
  const z = triangularSolve(l, b);
  return sum(mul(z, z), [-2, -1]);
}

/** log det of L Lᵀ for a Cholesky factor L (per matrix). */
export function logdetOfFactor(l: Node): Node {
  return mul(2, sum(log(diagonal(l)), -1));
}


/** L⁻¹ d for each vector d along the last axis of d (any batch shape). */
export function solveVectors(l: Node, d: Node): Node {
  if (d.rank === 1) return triangularSolve(l, d);
  const k = d.shape[d.rank - 1]!;
  const z = triangularSolve(l, mT(reshape(d, [-1, k])));
  return reshape(mT(z), [...d.shape.slice(0, -1), k]);
}

/** A square [K,K] matrix parameter (one matrix: batches of matrices are not supported); returns K. */
export function squareMatrix(dist: string, what: string, m: Node): number {
  if (m.rank !== 2 || m.shape[0] !== m.shape[1]) {
    throw new ModelError(`${dist}: ${what} must be a square [K,K] matrix, got [${m.shape.join(",")}]; batches of matrices are not supported, use one matrix`);
  }
  return m.shape[0]!;
}

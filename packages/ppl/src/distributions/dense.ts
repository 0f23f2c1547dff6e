/** Small dense linear algebra on row-major Float64Arrays, for samplers (graphs use the tensor ops). */

/** Lower Cholesky factor of an n×n symmetric positive-definite matrix; throws on a non-positive pivot. */
export function choleskyNumbers(a: ArrayLike<number>, n: number): Float64Array {
  const l = new Float64Array(n * n);
  const bad = factorLower(a, n, l);
  if (bad >= 0) throw new RangeError(`cholesky: the matrix is not positive definite (pivot ${bad + 1} is ${l[bad * n + bad]})`);
  return l;
}

/** True when the n×n matrix is exactly symmetric and its Cholesky pivots are all positive (covMatrix's support, as tests check draws against it). */
export function isSymmetricPositiveDefinite(a: ArrayLike<number>, n: number): boolean {
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) if (a[i * n + j] !== a[j * n + i]) return false;
  return factorLower(a, n, new Float64Array(n * n)) < 0;
}

// Writes the lower Cholesky factor of a into l; at the first pivot that is not positive it stops,
// leaves that pivot at l[i·n + i] and returns i (else −1), so that both callers share one loop.
function factorLower(a: ArrayLike<number>, n: number, l: Float64Array): number {
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= l[i * n + k]! * l[j * n + k]!;
      if (i === j) {
        if (!(s > 0)) {
          l[i * n + i] = s;
          return i;
        }
        l[i * n + i] = Math.sqrt(s);
      } else l[i * n + j] = s / l[j * n + j]!;
    }
  }
  return -1;
}

/** x = L z for lower-triangular L. */
export function lowerTimes(l: ArrayLike<number>, z: ArrayLike<number>, n: number): Float64Array {
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let s = 0;
    for (let k = 0; k <= i; k++) s += l[i * n + k]! * z[k]!;
    x[i] = s;
  }
  return x;
}

/** Solve Lᵀ x = z for lower-triangular L (back substitution). */
export function lowerTransposeSolve(l: ArrayLike<number>, z: ArrayLike<number>, n: number): Float64Array {
  const x = new Float64Array(n);
  for (let i = n - 1; i >= 0; i--) {
    let s = z[i]!;
    for (let k = i + 1; k < n; k++) s -= l[k * n + i]! * x[k]!;
    x[i] = s / l[i * n + i]!;
  }
  return x;
}

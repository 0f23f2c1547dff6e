/**
 * The thin QR factorization of a tall or wide matrix by Householder reflections (Golub & Van Loan,
 * Matrix Computations, §5.2): the few n×2m factorizations a Pathfinder iteration makes, with m the
 * L-BFGS history (5), are too small to gain from a library, and Householder's Q stays orthonormal
 * when the columns are nearly dependent (as successive L-BFGS pairs can be).
 */

/** A = Q R with Q n×k orthonormal columns and R k×p upper triangular (row-major), k = min(n, p). */
export interface ThinQr {
  readonly q: Float64Array;
  readonly r: Float64Array;
  readonly rows: number;
  readonly cols: number;
  readonly rank: number;
}

/** The thin QR factorization of the row-major n×p matrix `a` (left as it was). */
export function thinQr(a: Float64Array, n: number, p: number): ThinQr {
  const k = Math.min(n, p);
  const m = Float64Array.from(a);
  const vs: Float64Array[] = [];
  for (let j = 0; j < k; j++) {
    const v = new Float64Array(n - j);
    // The reflector does not depend on the column's scale: scaled to its largest entry, ‖x‖² neither underflows nor overflows.
    let big = 0;
    for (let i = j; i < n; i++) big = Math.max(big, Math.abs(m[i * p + j]!));
    if (big === 0) {
      vs.push(v);
      continue;
    }
    let norm2 = 0;
    for (let i = j; i < n; i++) norm2 += (m[i * p + j]! / big) ** 2;
    const norm = Math.sqrt(norm2);
    const x0 = m[j * p + j]! / big;
    // v = x + sign(x0)·‖x‖·e1: the sign that avoids cancellation.
    const alpha = x0 >= 0 ? -norm : norm;
    for (let i = j; i < n; i++) v[i - j] = m[i * p + j]! / big;
    v[0] = v[0]! - alpha;
    const vv = norm2 - x0 * x0 + v[0]! ** 2;
    vs.push(vv > 0 ? scale(v, Math.sqrt(2 / vv)) : new Float64Array(n - j));
    reflectRows(m, p, j, vs[j]!, j);
  }
  const r = new Float64Array(k * p);
  for (let i = 0; i < k; i++) for (let j = i; j < p; j++) r[i * p + j] = m[i * p + j]!;
  // Q's first k columns: the reflectors applied, last first, to the first k columns of I.
  const q = new Float64Array(n * k);
  for (let i = 0; i < k; i++) q[i * k + i] = 1;
  for (let j = k - 1; j >= 0; j--) reflectRows(q, k, j, vs[j]!, 0);
  return { q, r, rows: n, cols: p, rank: k };
}

// Applies I − v vᵀ (‖v‖² = 2, or v = 0) to rows j… of the row-major matrix m (width w), columns from c.
function reflectRows(m: Float64Array, w: number, j: number, v: Float64Array, c: number): void {
  for (let col = c; col < w; col++) {
    let d = 0;
    for (let i = 0; i < v.length; i++) d += v[i]! * m[(j + i) * w + col]!;
    if (d === 0) continue;
    for (let i = 0; i < v.length; i++) m[(j + i) * w + col] = m[(j + i) * w + col]! - d * v[i]!;
  }
}

function scale(v: Float64Array, s: number): Float64Array {
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * s;
  return v;
}

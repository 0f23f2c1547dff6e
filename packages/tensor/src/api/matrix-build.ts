import type { DType } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt, type Shape } from "../ir/shape.ts";
import { eq, mul, select } from "./elementwise.ts";
import { eye, iota } from "./iota.ts";
import { lift, type Operand } from "./leaves.ts";
import { broadcastTo, reshape } from "./shape-ops.ts";

// Matrices built from vectors and scalars (Stan's diag_matrix, identity_matrix, rep_*, and the
// Kronecker product), each a composition whose gradient comes from the ops it is made of.

/** The n × n identity matrix (Stan's identity_matrix); eye(n, m) gives rectangular ones. */
export function identity(n: number, dtype: DType = "f64"): Node {
  return eye(n, n, dtype);
}

/** The square matrix with v (length n) on its diagonal and zeros elsewhere (Stan's diag_matrix); batched over v's leading axes. */
export function diagMatrix(v: Operand): Node {
  const x = lift(v);
  if (x.rank < 1) throw new ShapeError(`diagMatrix: needs a vector, got ${fmt(x.shape)}`);
  const n = x.shape[x.rank - 1]!;
  const onDiagonal = eq(reshape(iota(n), [n, 1]), reshape(iota(n), [1, n]));
  // A select, not v times the identity: an infinite or NaN entry stays on the diagonal (∞·0 would spread NaN).
  const column = reshape(x, [...x.shape.slice(0, -1), n, 1]);
  return select(onDiagonal, broadcastTo(column, [...x.shape.slice(0, -1), n, n]), 0);
}

/**
 * x repeated to `shape` (NumPy broadcasting: x's axes align with the trailing ones): Stan's
 * rep_vector(x, n) = rep(x, [n]), rep_matrix(x, m, n) = rep(x, [m, n]), rep_matrix(row, m) =
 * rep(row, [m, k]); a column v repeated n times is rep(reshape(v, [m, 1]), [m, n]).
 */
export function rep(x: Operand, shape: Shape): Node {
  return broadcastTo(lift(x), shape);
}

/** The Kronecker product of A (m × n) and B (p × q): the (mp × nq) block matrix [A_ij·B]. */
export function kronecker(a: Operand, b: Operand): Node {
  const A = lift(a), B = lift(b);
  if (A.rank !== 2 || B.rank !== 2) throw new ShapeError(`kronecker: needs two matrices, got ${fmt(A.shape)} and ${fmt(B.shape)}`);
  const [m, n] = A.shape as [number, number];
  const [p, q] = B.shape as [number, number];
  // (i, k, j, l) ↦ A_ij·B_kl, whose row-major order is row i·p + k, column j·q + l.
  return reshape(mul(reshape(A, [m, 1, n, 1]), reshape(B, [1, p, 1, q])), [m * p, n * q]);
}

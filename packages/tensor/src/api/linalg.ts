import { floatOf, promote } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { broadcastShapes, fmt } from "../ir/shape.ts";
import { cast, exp, log, mul } from "./elementwise.ts";
import { eye } from "./iota.ts";
import { lift, type Operand } from "./leaves.ts";
import { eighNode, slogdetNode, squareOrder } from "./linalg-nodes.ts";
import { sum } from "./reduce.ts";
import { index, reshape, slice } from "./shape-ops.ts";

/** Matrix product over the last two axes, with NumPy broadcasting of the leading (batch) axes; vectors are promoted as in NumPy. */
export function matmul(a: Operand, b: Operand): Node {
  let x = lift(a), y = lift(b);
  if (x.rank === 0 || y.rank === 0) throw new ShapeError(`matmul: scalars are not allowed, got ${fmt(x.shape)} and ${fmt(y.shape)}`);
  const dt = floatOf(promote(x.dtype, y.dtype));
  x = cast(x, dt);
  y = cast(y, dt);
  // NumPy: a 1-D left operand is a row vector, a 1-D right operand a column vector; the added axis is dropped after.
  const vecA = x.rank === 1, vecB = y.rank === 1;
  if (vecA) x = reshape(x, [1, x.shape[0]!]);
  if (vecB) y = reshape(y, [y.shape[0]!, 1]);
  const [n, k] = x.shape.slice(-2) as [number, number];
  const [k2, m] = y.shape.slice(-2) as [number, number];
  if (k !== k2) throw new ShapeError(`matmul: inner dimensions differ: ${fmt(lift(a).shape)} @ ${fmt(lift(b).shape)}`);
  const batch = broadcastBatch("matmul", x.shape.slice(0, -2), y.shape.slice(0, -2), lift(a).shape, lift(b).shape);
  const out = Node.make("matmul", dt, [...batch, n, m], [x, y]);
  if (vecA && vecB) return reshape(out, batch);
  if (vecA) return reshape(out, [...batch, m]);
  if (vecB) return reshape(out, [...batch, n]);
  return out;
}

// Broadcast batch axes; the error names the full operand shapes, not just their batch parts.
function broadcastBatch(op: string, a: readonly number[], b: readonly number[], fullA: readonly number[], fullB: readonly number[]): number[] {
  try {
    return broadcastShapes(op, a, b);
  } catch {
    throw new ShapeError(`${op}: batch dimensions of ${fmt(fullA)} and ${fmt(fullB)} do not broadcast`);
  }
}

/** Inner product of two vectors (sum over the last axis, broadcasting the rest). */
export function dot(a: Operand, b: Operand): Node {
  return sum(mul(a, b), -1);
}

/** Lower Cholesky factor of symmetric positive-definite matrices (last two axes). */
export function cholesky(a: Operand): Node {
  const x = cast(lift(a), floatOf(lift(a).dtype));
  squareOrder("cholesky", x);
  return Node.make("cholesky", x.dtype, x.shape, [x]);
}

/** Solve L X = B (or Lᵀ X = B with transposeA) for triangular L; B is [..., n, m]. */
export function triangularSolve(l: Operand, b: Operand, opts: { lower?: boolean; transposeA?: boolean } = {}): Node {
  let L = lift(l), B = lift(b);
  const dt = floatOf(promote(L.dtype, B.dtype));
  L = cast(L, dt);
  B = cast(B, dt);
  const n = squareOrder("triangular_solve", L);
  const vec = B.rank === 1;
  if (vec) B = reshape(B, [B.shape[0]!, 1]);
  if (B.shape[B.rank - 2] !== n) throw new ShapeError(`triangular_solve: matrix ${fmt(L.shape)} and right-hand side ${fmt(lift(b).shape)} disagree`);
  const batch = broadcastBatch("triangular_solve", L.shape.slice(0, -2), B.shape.slice(0, -2), L.shape, lift(b).shape);
  const out = Node.make("triangular_solve", dt, [...batch, n, B.shape[B.rank - 1]!], [L, B], {
    lower: opts.lower ?? true,
    transposeA: opts.transposeA ?? false,
  });
  return vec ? reshape(out, [...batch, n]) : out;
}

/** Diagonal of the last two (square) axes. */
export function diagonal(a: Operand): Node {
  const x = lift(a);
  const n = squareOrder("diagonal", x);
  const flat = reshape(x, [...x.shape.slice(0, -2), n * n]);
  const specs = x.shape.slice(0, -2).map(() => undefined);
  return slice(flat, [...specs, { start: 0, stop: n * n, step: n + 1 }]);
}

/** log det of symmetric positive-definite matrices, through their Cholesky factor. */
export function logdetSpd(a: Operand): Node {
  return mul(2, sum(log(diagonal(cholesky(a))), -1));
}

/**
 * X = A⁻¹B for general square A (Stan's mdivide_left, A \ B), by LU with partial pivoting; B is
 * [..., n, m] or a vector [n], batch axes broadcast. A singular A gives ±inf or NaN entries (a
 * log density built on them is rejected by the sampler), never an exception.
 */
export function solve(a: Operand, b: Operand): Node {
  let A = lift(a), B = lift(b);
  const dt = floatOf(promote(A.dtype, B.dtype));
  A = cast(A, dt);
  B = cast(B, dt);
  const n = squareOrder("solve", A);
  const vec = B.rank === 1;
  if (vec) B = reshape(B, [B.shape[0]!, 1]);
  if (B.rank < 2 || B.shape[B.rank - 2] !== n) {
    throw new ShapeError(`solve: matrix ${fmt(A.shape)} and right-hand side ${fmt(lift(b).shape)} disagree; B needs ${n} rows: a vector [${n}] or [..., ${n}, m] (for B·A⁻¹, Stan's mdivide_right, solve Aᵀ against Bᵀ and transpose)`);
  }
  const batch = broadcastBatch("solve", A.shape.slice(0, -2), B.shape.slice(0, -2), A.shape, lift(b).shape);
  const out = Node.make("solve", dt, [...batch, n, B.shape[B.rank - 1]!], [A, B]);
  return vec ? reshape(out, [...batch, n]) : out;
}

/** A⁻¹ of general square matrices (Stan's inverse), as solve(A, I); a singular A gives non-finite entries. */
export function inverse(a: Operand): Node {
  const A = cast(lift(a), floatOf(lift(a).dtype));
  const n = squareOrder("inverse", A);
  return solve(A, eye(n, n, A.dtype));
}

/** sign(det A) and log|det A| of general square matrices from one LU factorization (NumPy's slogdet); a singular A gives sign 0 and −inf. */
export function signLogDeterminant(a: Operand): { sign: Node; logAbs: Node } {
  const s = slogdetNode(a);
  return { sign: index(s, 0, -1), logAbs: index(s, 1, -1) };
}

/** log|det A| of general square matrices (Stan's log_determinant), by LU with partial pivoting; −inf for a singular A. */
export function logDeterminant(a: Operand): Node {
  return index(slogdetNode(a), 1, -1);
}

/** det A of general square matrices (Stan's determinant), as sign · exp(log|det A|): 0 for a singular A. */
export function determinant(a: Operand): Node {
  const { sign, logAbs } = signLogDeterminant(a);
  return mul(sign, exp(logAbs));
}

/**
 * Eigenvalues in ascending order ([..., n]) and unit eigenvectors (the columns of [..., n, n]) of
 * symmetric matrices (Stan's eigenvalues_sym, eigenvectors_sym), by cyclic Jacobi rotations. Only
 * the symmetric part (A + Aᵀ)/2 is read, so gradients are symmetric. Each eigenvector's largest
 * entry is positive. The gradient through the eigenvectors divides by eigenvalue gaps: it is
 * undefined for repeated eigenvalues (the pairs that tie are left out of it), while the
 * eigenvalues' gradient is exact there too. A non-finite entry gives NaN throughout.
 */
export function eighSymmetric(a: Operand): { values: Node; vectors: Node } {
  const e = eighNode(a);
  const n = e.shape[e.rank - 1]!;
  const rows: ({ start: number; stop: number } | undefined)[] = [];
  rows[e.rank - 2] = { start: 0, stop: n };
  return { values: index(e, n, -2), vectors: slice(e, rows) };
}

/** Eigenvalues of symmetric matrices in ascending order (Stan's eigenvalues_sym): eighSymmetric(a).values. */
export function eigenvaluesSym(a: Operand): Node {
  return eighSymmetric(a).values;
}

/** Unit eigenvectors of symmetric matrices as columns, in the order of eigenvaluesSym (Stan's eigenvectors_sym): eighSymmetric(a).vectors. */
export function eigenvectorsSym(a: Operand): Node {
  return eighSymmetric(a).vectors;
}

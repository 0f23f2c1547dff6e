import { floatOf, promote } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { broadcastShapes, fmt } from "../ir/shape.ts";
import { cast, log, mul } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { sum } from "./reduce.ts";
import { reshape, slice } from "./shape-ops.ts";

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

function checkSquare(op: string, x: Node): number {
  const n = x.shape[x.rank - 1];
  if (x.rank < 2 || x.shape[x.rank - 2] !== n) throw new ShapeError(`${op}: needs square matrices in the last two axes, got ${fmt(x.shape)}`);
  return n!;
}

/** Lower Cholesky factor of symmetric positive-definite matrices (last two axes). */
export function cholesky(a: Operand): Node {
  const x = cast(lift(a), floatOf(lift(a).dtype));
  checkSquare("cholesky", x);
  return Node.make("cholesky", x.dtype, x.shape, [x]);
}

/** Solve L X = B (or Lᵀ X = B with transposeA) for triangular L; B is [..., n, m]. */
export function triangularSolve(l: Operand, b: Operand, opts: { lower?: boolean; transposeA?: boolean } = {}): Node {
  let L = lift(l), B = lift(b);
  const dt = floatOf(promote(L.dtype, B.dtype));
  L = cast(L, dt);
  B = cast(B, dt);
  const n = checkSquare("triangular_solve", L);
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
  const n = checkSquare("diagonal", x);
  const flat = reshape(x, [...x.shape.slice(0, -2), n * n]);
  const specs = x.shape.slice(0, -2).map(() => undefined);
  return slice(flat, [...specs, { start: 0, stop: n * n, step: n + 1 }]);
}

/** log det of symmetric positive-definite matrices, through their Cholesky factor. */
export function logdetSpd(a: Operand): Node {
  return mul(2, sum(log(diagonal(cholesky(a))), -1));
}

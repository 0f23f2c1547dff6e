import { ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt } from "../ir/shape.ts";
import { mul } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { dot, matmul } from "./linalg.ts";
import { sum } from "./reduce.ts";
import { mT, reshape } from "./shape-ops.ts";

// Stan's quadratic forms as matrix products; their gradients are the products'.

function square(op: string, A: Node): number {
  const n = A.shape[A.rank - 1]!;
  if (A.rank !== 2 || A.shape[0] !== n) throw new ShapeError(`${op}: needs a square matrix, got ${fmt(A.shape)}`);
  return n;
}

/** Bᵀ·A·B for a square A (Stan's quad_form): a scalar when B is a vector, a k × k matrix when B is n × k. */
export function quadForm(a: Operand, b: Operand): Node {
  const A = lift(a), B = lift(b);
  square("quadForm", A);
  if (B.rank === 1) return dot(B, matmul(A, B));
  return matmul(mT(B), matmul(A, B));
}

/** diag(v)·M·diag(v) = M ⊙ v·vᵀ (Stan's quad_form_diag), without forming diag(v). */
export function quadFormDiag(m: Operand, v: Operand): Node {
  const M = lift(m), V = lift(v);
  const n = square("quadFormDiag", M);
  if (V.rank !== 1 || V.shape[0] !== n) throw new ShapeError(`quadFormDiag: needs a vector of ${n}, got ${fmt(V.shape)}`);
  return mul(mul(M, reshape(V, [n, 1])), reshape(V, [1, n]));
}

/** trace(Bᵀ·A·B) (Stan's trace_quad_form) = Σ B ⊙ (A·B), without the k × k product. */
export function traceQuadForm(a: Operand, b: Operand): Node {
  const A = lift(a), B = lift(b);
  square("traceQuadForm", A);
  return sum(mul(B, matmul(A, B)));
}

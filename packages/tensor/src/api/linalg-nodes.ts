import { floatOf } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { fmt } from "../ir/shape.ts";
import { cast } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";

// The packed nodes behind the general linear algebra of linalg.ts, for the batching rules and the
// vjp rules (which rebuild them); not part of the package's entry. Packing several results in one
// node keeps them one factorization: slogdet is [..., 2] = [sign, log|det|]; eigh is [..., n + 1, n],
// the eigenvectors as the columns of rows 0…n−1 and the eigenvalues in row n.

/** The order n of square matrices in the last two axes; the error says what shape is wanted. */
export function squareOrder(op: string, x: Node): number {
  const n = x.shape[x.rank - 1];
  if (x.rank < 2 || x.shape[x.rank - 2] !== n) {
    throw new ShapeError(`${op}: needs square matrices in the last two axes, got ${fmt(x.shape)}; give an [..., n, n] tensor (reshape a flat vector of n² entries to [n, n])`);
  }
  return n!;
}

/** The slogdet node of square matrices: [..., 2] holding sign(det A) and log|det A|. */
export function slogdetNode(a: Operand): Node {
  const x = cast(lift(a), floatOf(lift(a).dtype));
  squareOrder("logDeterminant", x);
  return Node.make("slogdet", x.dtype, [...x.shape.slice(0, -2), 2], [x]);
}

/** The eigh node of (the symmetric parts of) square matrices: [..., n + 1, n], eigenvectors over eigenvalues. */
export function eighNode(a: Operand): Node {
  const x = cast(lift(a), floatOf(lift(a).dtype));
  const n = squareOrder("eighSymmetric", x);
  return Node.make("eigh", x.dtype, [...x.shape.slice(0, -2), n + 1, n], [x]);
}

import { matmul } from "../api/linalg.ts";
import { reshape } from "../api/shape-ops.ts";
import type { Node } from "../ir/node.ts";
import { aligned, batched, moveAxis, type BatchRule } from "./batched-value.ts";

/**
 * matmul over [..., n, k] @ [..., k, m]. The shared-data cases become one plain matrix product
 * over all chains, so a data matrix is read once per evaluation rather than once per chain:
 * - data X[n,k] @ batched B[C, ..., k, m]: X @ (B as [k, C·…·m]) → [n, C·…·m], then axes moved back;
 *   for X[N,D] @ beta[C,D] this is X @ betaᵀ.
 * - batched A[C, ..., n, k] @ data W[k, m]: (A as [C·…·n, k]) @ W.
 * Everything else broadcasts the batch axis like any other leading axis.
 */
export const matmulRule: BatchRule = (node, [a, b], ctx) => {
  const A = a!, B = b!;
  const C = ctx.size;
  if (!A.batched && A.node.rank === 2) return batched(sharedLeft(A.node, B.node));
  if (!B.batched && B.node.rank === 2) {
    const [, ...sa] = A.node.shape;
    const k = sa[sa.length - 1]!, m = B.node.shape[1]!;
    const flat = matmul(reshape(A.node, [-1, k]), B.node);
    return batched(reshape(flat, [C, ...sa.slice(0, -1), m]));
  }
  return batched(matmul(aligned(A, node.rank), aligned(B, node.rank)));
};

// X[n,k] @ B[C, ...b, k, m] → [C, ...b, n, m] through one [n,k] @ [k, C·…·m] product.
function sharedLeft(X: Node, B: Node): Node {
  const r = B.rank;
  const k = B.shape[r - 2]!, n = X.shape[0]!;
  const rest = [...B.shape.slice(0, r - 2), B.shape[r - 1]!]; // [C, ...b, m]
  const cols = reshape(moveAxis(B, r - 2, 0), [k, -1]);
  const out = reshape(matmul(X, cols), [n, ...rest]); // [n, C, ...b, m]
  return moveAxis(out, 0, r - 2);
}

import { add, mul, neg } from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { matmul, triangularSolve } from "../../api/linalg.ts";
import { mT } from "../../api/shape-ops.ts";
import type { DType } from "../../ir/dtype.ts";
import type { Node } from "../../ir/node.ts";
import type { VjpRule } from "../rule.ts";
import { unbroadcast } from "../unbroadcast.ts";

/** An n×n constant with `below` under the diagonal, `diag` on it and `above` over it. */
function triangleMask(n: number, below: number, diag: number, above: number, dtype: DType): Node {
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) v[i * n + j] = i > j ? below : i === j ? diag : above;
  return constant(v, [n, n], dtype);
}

/** matmul: ct·Bᵀ and Aᵀ·ct, summed over the batch axes an operand was broadcast along. */
export const matmulRule: VjpRule = (node, ct) => {
  const [a, b] = node.inputs as [Node, Node];
  return [unbroadcast(matmul(ct, mT(b)), a.shape), unbroadcast(matmul(mT(a), ct), b.shape)];
};

/**
 * triangular_solve: X = M⁻¹B with M = L or Lᵀ. Then B̄ = M⁻ᵀX̄ (one more solve, with the other
 * transpose flag) and M̄ = −B̄Xᵀ; L̄ is M̄ or its transpose, kept to the triangle the kernel reads.
 */
export const triangularSolveRule: VjpRule = (node, ct) => {
  const [l, b] = node.inputs as [Node, Node];
  const lower = node.attrs.lower!, transposeA = node.attrs.transposeA!;
  const bBar = triangularSolve(l, ct, { lower, transposeA: !transposeA });
  const mBar = transposeA ? neg(matmul(node, mT(bBar))) : neg(matmul(bBar, mT(node)));
  const n = l.shape[l.rank - 1]!;
  const triangle = lower ? triangleMask(n, 1, 1, 0, l.dtype) : triangleMask(n, 0, 1, 1, l.dtype);
  return [unbroadcast(mul(mBar, triangle), l.shape), unbroadcast(bBar, b.shape)];
};

/**
 * cholesky (Murray 2016, as in Stan): with P = Φ(Lᵀ L̄) and S = L⁻ᵀ P L⁻¹, Ā = Φ(S + Sᵀ), where Φ keeps
 * the lower triangle and halves the diagonal. The kernel reads only the lower triangle of A, so the
 * gradient lives there: an off-diagonal entry stands for both A_ij and A_ji, hence S + Sᵀ.
 * L̄ is first restricted to the lower triangle, since the upper entries of L are constant zeros.
 */
export const choleskyRule: VjpRule = (node, ct) => {
  const n = node.shape[node.rank - 1]!;
  const phi = triangleMask(n, 1, 0.5, 0, node.dtype);
  const lBar = mul(ct, triangleMask(n, 1, 1, 0, node.dtype));
  const p = mul(matmul(mT(node), lBar), phi);
  const left = triangularSolve(node, p, { lower: true, transposeA: true });
  const s = mT(triangularSolve(node, mT(left), { lower: true, transposeA: true }));
  return [mul(add(s, mT(s)), phi)];
};

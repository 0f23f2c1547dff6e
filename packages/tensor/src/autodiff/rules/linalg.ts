import { add, eq, mul, neg, reciprocal, select, sub } from "../../api/elementwise.ts";
import { eye } from "../../api/iota.ts";
import { constant } from "../../api/leaves.ts";
import { inverse, matmul, solve, triangularSolve } from "../../api/linalg.ts";
import { index, mT, reshape, slice } from "../../api/shape-ops.ts";
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

/** solve: X = A⁻¹B, so B̄ = A⁻ᵀX̄ (a solve with Aᵀ) and Ā = −B̄Xᵀ, each summed over the batch axes it was broadcast along. */
export const solveRule: VjpRule = (node, ct) => {
  const [a, b] = node.inputs as [Node, Node];
  const bBar = solve(mT(a), ct);
  return [unbroadcast(neg(matmul(bBar, mT(node))), a.shape), unbroadcast(bBar, b.shape)];
};

/** slogdet: ∂log|det A|/∂A = A⁻ᵀ (Jacobi's formula); the sign is piecewise constant and carries nothing. */
export const slogdetRule: VjpRule = (node, ct) => {
  const a = node.inputs[0]!;
  const logAbsBar = index(ct, 1, -1);
  return [mul(reshape(logAbsBar, [...logAbsBar.shape, 1, 1]), inverse(mT(a)))];
};

/**
 * eigh (A = V diag(w) Vᵀ): Ā = V (diag(w̄) + F ∘ (VᵀV̄)) Vᵀ with F_ij = 1/(w_j − w_i) off the
 * diagonal and 0 on it (Giles 2008), then its symmetric part, since the kernel reads (A + Aᵀ)/2.
 * The eigenvectors' gradient is undefined where eigenvalues coincide; there F is set to 0 (so the
 * eigenvalues' gradient stays exact and finite) and the eigenvector part is not meaningful. Close
 * eigenvalues give the true, large, derivative.
 */
export const eighRule: VjpRule = (node, ct) => {
  const n = node.shape[node.rank - 1]!;
  const rows: ({ start: number; stop: number } | undefined)[] = [];
  rows[node.rank - 2] = { start: 0, stop: n };
  const v = slice(node, rows), w = index(node, n, -2);
  const vBar = slice(ct, rows), wBar = index(ct, n, -2);
  // The identity as an iota comparison, not an array constant: inside a scan body (an ODE's right-hand
  // side, say) the GPU's one-thread renderer reads array constants only as the scan's inputs.
  const I = eye(n, n, node.dtype);
  const row = (x: Node) => reshape(x, [...x.shape.slice(0, -1), 1, n]);
  const col = (x: Node) => reshape(x, [...x.shape.slice(0, -1), n, 1]);
  // D_ij = w_j − w_i, zero on the diagonal and for repeated eigenvalues; the inner select keeps 1/0 out of the graph.
  const gap = sub(row(w), col(w));
  const tie = eq(gap, 0);
  const f = select(tie, 0, reciprocal(select(tie, 1, gap)));
  const inner = add(mul(row(wBar), I), mul(f, matmul(mT(v), vBar)));
  const g = matmul(matmul(v, inner), mT(v));
  return [mul(add(g, mT(g)), 0.5)];
};

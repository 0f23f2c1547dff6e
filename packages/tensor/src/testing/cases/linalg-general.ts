import fc from "fast-check";
import { abs, add, div, mul, sub } from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { determinant, eighSymmetric, inverse, logDeterminant, matmul, signLogDeterminant, solve } from "../../api/linalg.ts";
import { max, sum } from "../../api/reduce.ts";
import { scan } from "../../api/scan.ts";
import { mT, reshape } from "../../api/shape-ops.ts";
import { grad } from "../../autodiff/vjp.ts";
import type { Node } from "../../ir/node.ts";
import { broadcastableTo, floats, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import type { FloatDType, Tolerance } from "../tolerance.ts";

const conditioned = (factor: number) => (dtype: FloatDType): Tolerance => ({ ulps: factor, atol: dtype === "f32" ? 1e-6 : 1e-300 });

// 2·J (J the reversal permutation) plus m, entries of m in [−0.4, 0.4]: every pivot search swaps rows,
// and the smallest singular value stays above 2 − 0.4·n ≥ 0.4 for n ≤ 4 (a condition number below 10).
function pivoted(m: Node, n: number): Node {
  const J = Float64Array.from({ length: n * n }, (_, f) => (Math.floor(f / n) + (f % n) === n - 1 ? 2 : 0));
  return add(m, constant(J, [n, n], m.dtype));
}

/** General solve (LU with partial pivoting) and inverse with batch broadcasting, slogdet and determinant (a singular batch too), eigh of symmetric batches; with gradients. */
export function generalLinalgCases(): ConformanceCase[] {
  return [
    {
      name: "solve (LU, partial pivoting) with batch broadcasting, inverse, and solve's gradient",
      ops: ["solve"],
      tolerance: conditioned(256),
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 2, 2), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 })).chain(([batch, n, m]) =>
          fc.tuple(broadcastableTo(batch), broadcastableTo(batch)).chain(([ba, bb]) =>
            instanceArb(
              dtype,
              [
                { name: "m", shape: [...ba, n, n], values: floats(-0.4, 0.4) },
                { name: "b", shape: m === 0 ? [n] : [...bb, n, m], values: floats(-3, 3) },
              ],
              ([mm, b]) => {
                const A = pivoted(mm!, n);
                const x = solve(A, b!);
                const inv = inverse(A);
                const [gA] = grad(sum(mul(x, x)), [mm!]);
                return { outputs: [x, inv, gA!], scales: [mul(max(abs(x)), 16 * n), mul(max(abs(inv)), 16 * n), mul(max(abs(gA!)), 64 * n)] };
              },
            ),
          ),
        ),
    },
    {
      name: "slogdet: sign and log|det| of general batches, determinant, a singular matrix, and the gradient",
      ops: ["slogdet", "solve"],
      tolerance: conditioned(256),
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 2, 2), fc.integer({ min: 1, max: 4 })).chain(([batch, n]) =>
          instanceArb(dtype, [{ name: "m", shape: [...batch, n, n], values: floats(-0.4, 0.4) }], ([mm]) => {
            const A = pivoted(mm!, n);
            const { sign, logAbs } = signLogDeterminant(A);
            // The last row zeroed: a zero pivot at the last step, so sign 0 and log|det| −inf exactly.
            const rows = Float64Array.from({ length: n }, (_, i) => (i === n - 1 ? 0 : 1));
            const singular = signLogDeterminant(mul(A, constant(rows, [n, 1], A.dtype)));
            const [g] = grad(sum(logAbs), [mm!]);
            const det = determinant(A);
            return {
              outputs: [sign, logAbs, det, singular.sign, singular.logAbs, g!],
              scales: [undefined, mul(add(abs(logAbs), 1), 8 * n), mul(abs(det), 16 * n), undefined, undefined, mul(max(abs(g!)), 64 * n)],
            };
          }),
        ),
    },
    {
      name: "eigh of symmetric batches (separated eigenvalues, dense eigenvectors) and its gradient",
      ops: ["eigh"],
      tolerance: conditioned(256),
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 1, 2), fc.integer({ min: 1, max: 5 })).chain(([batch, n]) =>
          instanceArb(
            dtype,
            [
              { name: "m", shape: [...batch, n, n], values: floats(-0.25, 0.25) },
              { name: "h", shape: [n], values: floats(0.5, 1) },
              { name: "c", shape: [n], values: floats(-1, 1) },
            ],
            ([mm, h, c]) => {
              // H (D + (M + Mᵀ)/2) H with D = diag(4(n−1), …, 4, 0) and H a Householder reflection:
              // eigenvalues at least 4 − 2·0.25·n ≥ 1.5 apart (Weyl), eigenvectors dense, in reverse order of D.
              const D = Float64Array.from({ length: n * n }, (_, f) => (f % (n + 1) === 0 ? 4 * (n - 1 - f / (n + 1)) : 0));
              const S = add(mul(add(mm!, mT(mm!)), 0.5), constant(D, [n, n], mm!.dtype));
              const v = reshape(h!, [n, 1]);
              const I = Float64Array.from({ length: n * n }, (_, f) => (f % (n + 1) === 0 ? 1 : 0));
              const H = sub(constant(I, [n, n], mm!.dtype), div(mul(matmul(v, mT(v)), 2), sum(mul(h!, h!))));
              const A = matmul(matmul(H, S), H);
              const { values, vectors } = eighSymmetric(A);
              const [g] = grad(add(sum(mul(values, c!)), sum(mul(mul(vectors, vectors), reshape(c!, [n, 1])))), [mm!]);
              const spread = add(max(abs(values)), 1);
              return { outputs: [values, vectors, g!], scales: [mul(spread, 4 * n), mul(spread, 4 * n), mul(add(max(abs(g!)), 1), 32 * n)] };
            },
          ),
        ),
    },
    {
      // Inside a scan body the whole graph runs in one thread (the GPU's sequential renderer): the
      // units loop there, and their private arrays live in the loop's body.
      name: "solve, log|det| and eigenvalues inside a scan body, and their gradients there",
      ops: ["solve", "slogdet", "eigh", "scan"],
      tolerance: conditioned(1024),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 })).chain(([steps, n]) =>
          instanceArb(
            dtype,
            [
              { name: "m", shape: [steps, n, n], values: floats(-0.4, 0.4) },
              { name: "x0", shape: [n], values: floats(-1, 1) },
            ],
            ([mm, x0]) => {
              // The pivoted matrices are built outside the body: array constants do not enter scan bodies on the GPU.
              const res = scan(([x, ld], [A]) => {
                const w = eighSymmetric(add(A!, mT(A!))).values;
                return { carry: [mul(solve(A!, x!), 0.5), add(ld!, logDeterminant(A!))], ys: [w] };
              }, [x0!, constant(0, [], x0!.dtype)], [pivoted(mm!, n)]);
              const [x, ld] = res.carry as [Node, Node];
              const w = res.ys[0]!;
              // The gradient runs the rules of all three inside the scan's reverse body.
              const [g] = grad(add(add(sum(x), ld), sum(mul(w, w))), [mm!]);
              return {
                outputs: [x, ld, w, g!],
                scales: [mul(add(max(abs(x)), 1), 16 * n * steps), mul(add(abs(ld), 1), 8 * n), mul(add(max(abs(w)), 1), 8 * n), mul(add(max(abs(g!)), 1), 64 * n * steps)],
              };
            },
          ),
        ),
    },
  ];
}

import fc from "fast-check";
import { abs, add, exp, mul } from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { cholesky, matmul, triangularSolve } from "../../api/linalg.ts";
import { max } from "../../api/reduce.ts";
import { mT, reshape } from "../../api/shape-ops.ts";
import type { Node } from "../../ir/node.ts";
import { broadcastableTo, floats, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { accumulatedTol, type FloatDType, type Tolerance } from "../tolerance.ts";

const conditioned = (factor: number) => (dtype: FloatDType): Tolerance => ({ ulps: factor, atol: dtype === "f32" ? 1e-6 : 1e-300 });

/** matmul with batch broadcasting and vector operands; cholesky of SPD batches; triangular solves in all four variants. */
export function linalgCases(): ConformanceCase[] {
  return [
    {
      name: "matmul with batch broadcasting",
      ops: ["matmul"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        fc
          .tuple(shapeArb(0, 2, 3), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 3 }))
          .chain(([batch, n, k, m, vec]) =>
            fc.tuple(broadcastableTo(batch), broadcastableTo(batch)).chain(([ba, bb]) => {
              // vec: 0 matrix @ matrix, 1 vector @ matrix, 2 matrix @ vector, 3 both matrices with the left one transposed in memory.
              const sa = vec === 1 ? [k] : vec === 3 ? [...ba, k, n] : [...ba, n, k];
              const sb = vec === 2 ? [k] : [...bb, k, m];
              return instanceArb(dtype, [{ name: "a", shape: sa, values: floats(-3, 3) }, { name: "b", shape: sb, values: floats(-3, 3) }], ([a, b]) => {
                const A = vec === 3 ? swapLast(a!) : a!;
                const out = matmul(A, b!);
                return { outputs: [out, exp(mul(matmul(A, exp(b!)), 0.01))], scales: [mul(matmul(abs(A), abs(b!)), k), mul(matmul(abs(A), exp(b!)), 0.01 * k)] };
              });
            }),
          ),
    },
    {
      name: "cholesky of SPD batches",
      ops: ["cholesky"],
      tolerance: conditioned(64),
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 2, 2), fc.integer({ min: 1, max: 5 })).chain(([batch, n]) =>
          instanceArb(dtype, [{ name: "m", shape: [...batch, n, n], values: floats(-1, 1) }], ([m]) => {
            // A = M Mᵀ + n I: symmetric, positive definite, condition number below about 1 + n.
            const eye = Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? n : 0));
            const A = addConst(matmul(m!, swapLast(m!)), eye, [n, n], dtype);
            const L = cholesky(A);
            return { outputs: [L], scales: [mul(max(abs(L)), n)] };
          }),
        ),
    },
    {
      name: "triangular_solve (lower/upper × transposed)",
      ops: ["triangular_solve"],
      tolerance: conditioned(64),
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 2, 2), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 3 }), fc.boolean(), fc.boolean()).chain(([batch, n, m, lower, transposeA]) =>
          fc.tuple(broadcastableTo(batch), broadcastableTo(batch)).chain(([bl, bb]) =>
            instanceArb(
              dtype,
              [
                // Off-diagonal entries small next to a diagonal in [1, 2]: well conditioned whatever the draw.
                { name: "l", shape: [...bl, n, n], values: floats(-0.3, 0.3) },
                { name: "d", shape: [n], values: floats(1, 2) },
                { name: "b", shape: m === 0 ? [n] : [...bb, n, m], values: floats(-3, 3) },
              ],
              ([l, d, b]) => {
                const L = addDiag(l!, d!, n);
                const x = triangularSolve(L, b!, { lower, transposeA });
                return { outputs: [x], scales: [mul(max(abs(x)), 4 * n)] };
              },
            ),
          ),
        ),
    },
  ];
}

function swapLast(x: Node): Node {
  return mT(x);
}

function addConst(x: Node, values: Float64Array, shape: number[], dtype: FloatDType): Node {
  return add(x, constant(values, shape, dtype));
}

// l with its diagonal replaced by d (the triangle the solve ignores is left as is).
function addDiag(l: Node, d: Node, n: number): Node {
  const eye = Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 1 : 0));
  const off = Float64Array.from({ length: n * n }, (_, i) => (i % (n + 1) === 0 ? 0 : 1));
  const I = constant(eye, [n, n], l.dtype), O = constant(off, [n, n], l.dtype);
  return add(mul(l, O), mul(reshape(d, [1, n]), I));
}

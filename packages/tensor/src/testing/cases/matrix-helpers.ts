import fc from "fast-check";
import { abs, div, mul } from "../../api/elementwise.ts";
import { gpExpQuadCov, gpMatern32Cov, gpPeriodicCov } from "../../api/gp-cov.ts";
import { diagMatrix, kronecker } from "../../api/matrix-build.ts";
import { quadForm, quadFormDiag, traceQuadForm } from "../../api/quad-form.ts";
import { sum } from "../../api/reduce.ts";
import { grad } from "../../autodiff/vjp.ts";
import { floats } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { compositeTol, exactTol } from "../tolerance.ts";

/** The matrix builders, the quadratic forms and the GP covariance functions (compositions), with the GP kernels' gradients. */
export function matrixHelperCases(): ConformanceCase[] {
  return [
    {
      name: "diagMatrix and kronecker",
      ops: ["select", "mul", "reshape"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 })).chain(([n, p, q]) =>
          instanceArb(
            dtype,
            [
              { name: "v", shape: [n], values: floats(-3, 3) },
              { name: "B", shape: [p, q], values: floats(-3, 3) },
            ],
            ([v, B]) => ({ outputs: [diagMatrix(v!), kronecker(diagMatrix(v!), B!)] }),
          ),
        ),
    },
    {
      name: "quadForm, quadFormDiag and traceQuadForm",
      ops: ["matmul", "reduce_sum"],
      tolerance: (d) => compositeTol(d, 4),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 })).chain(([n, k]) =>
          instanceArb(
            dtype,
            [
              { name: "A", shape: [n, n], values: floats(-2, 2) },
              { name: "B", shape: [n, k], values: floats(-2, 2) },
              { name: "v", shape: [n], values: floats(-2, 2) },
            ],
            ([A, B, v]) => {
              // Error scales: the same forms of |A|, |B| and |v| bound every term.
              const [aA, aB, av] = [abs(A!), abs(B!), abs(v!)];
              return {
                outputs: [quadForm(A!, B!), quadForm(A!, v!), quadFormDiag(A!, v!), traceQuadForm(A!, B!)],
                scales: [quadForm(aA, aB), quadForm(aA, av), undefined, traceQuadForm(aA, aB)],
              };
            },
          ),
        ),
    },
    {
      name: "gpExpQuadCov, gpMatern32Cov and gpPeriodicCov with their gradients (real and vector points)",
      ops: ["exp", "sin", "sqrt", "select", "reduce_sum"],
      tolerance: (d) => compositeTol(d, 8),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 3 })).chain(([n, d]) =>
          instanceArb(
            dtype,
            [
              { name: "x", shape: d === 0 ? [n] : [n, d], values: floats(-2, 2) },
              { name: "alpha", shape: [], values: floats(0.5, 2) },
              { name: "rho", shape: [], values: floats(0.5, 2) },
              { name: "period", shape: [], values: floats(1, 3) },
            ],
            ([x, alpha, rho, period]) => {
              const ks = [gpExpQuadCov(x!, alpha!, rho!), gpMatern32Cov(x!, alpha!, rho!), gpPeriodicCov(x!, alpha!, rho!, period!)];
              const grads = ks.flatMap((k) => grad(sum(k), k === ks[2] ? [x!, alpha!, rho!, period!] : [x!, alpha!, rho!]));
              // A gradient entry sums up to n² terms of size k·(distance/rho², 1/alpha, …): scale by Σk / min(alpha, rho, 1)².
              const scale = div(mul(sum(ks[0]!), 8), mul(rho!, rho!));
              return { outputs: [...ks, ...grads], scales: [undefined, undefined, undefined, ...grads.map(() => scale)] };
            },
          ),
        ),
    },
  ];
}

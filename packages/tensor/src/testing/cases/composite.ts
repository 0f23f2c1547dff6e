import fc from "fast-check";
import { abs, exp, gt, mul, tanh } from "../../api/elementwise.ts";
import { argmax, argmin } from "../../api/arg-reduce.ts";
import { eye } from "../../api/iota.ts";
import { all, any } from "../../api/logical.ts";
import { putSlice } from "../../api/put-slice.ts";
import { sum } from "../../api/reduce.ts";
import { conv1d, slidingMax, slidingSum } from "../../api/windows.ts";
import { grad } from "../../autodiff/vjp.ts";
import { floats, shapeArb, smallInts } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { accumulatedTol, compositeTol, exactTol } from "../tolerance.ts";

/**
 * The operators built from other ops (any/all, argmax/argmin, eye, putSlice, conv1d and the
 * sliding-window reductions): their graphs, and their gradients where they have one, must agree
 * with the oracle on every backend like any op's.
 */
export function compositeCases(): ConformanceCase[] {
  return [
    {
      name: "any and all over a random axis and over everything",
      ops: ["reduce_sum", "not", "gt", "eq"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3).chain((shape) =>
          fc.integer({ min: 0, max: shape.length - 1 }).chain((axis) =>
            // Mostly-true or mostly-false inputs, so that both answers occur.
            instanceArb(dtype, [{ name: "x", shape, values: smallInts(-1, 3) }], ([x]) => {
              const b = gt(x!, 0);
              return { outputs: [any(b, axis), all(b, axis), any(b), all(b, undefined, true)] };
            }),
          ),
        ),
    },
    {
      // Counts over no entries: any is false, all is true.
      name: "any and all over an empty axis",
      ops: ["reduce_sum", "not"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        fc.integer({ min: 1, max: 4 }).chain((n) =>
          instanceArb(dtype, [{ name: "x", shape: [n, 0], values: smallInts() }], ([x]) => {
            const b = gt(x!, 0);
            return { outputs: [any(b, 1), all(b, 1)] };
          }),
        ),
    },
    {
      name: "argmax and argmin with ties (the first index wins)",
      ops: ["reduce_max", "reduce_min", "eq", "select"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3).chain((shape) =>
          fc.integer({ min: 0, max: shape.length - 1 }).chain((axis) =>
            instanceArb(dtype, [{ name: "x", shape, values: smallInts() }], ([x]) => ({
              outputs: [argmax(x!, axis), argmin(x!, axis), argmax(tanh(x!), axis, true)],
            })),
          ),
        ),
    },
    {
      name: "eye (iota and eq) times a matrix",
      ops: ["eq", "cast"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 5 })).chain(([n, m]) =>
          instanceArb(dtype, [{ name: "x", shape: [n, m], values: floats(-3, 3) }], ([x]) => ({ outputs: [mul(x!, eye(n, m, dtype))] })),
        ),
    },
    {
      name: "putSlice and its gradient (the cotangent split between x and the block)",
      ops: ["select", "pad"],
      tolerance: (d) => compositeTol(d, 2),
      arbitrary: (dtype) =>
        shapeArb(1, 3, 5).chain((shape) =>
          fc.tuple(...shape.map((d) => fc.integer({ min: 0, max: d - 1 }).chain((s) => fc.tuple(fc.constant(s), fc.integer({ min: 0, max: d - s }))))).chain((blocks) =>
            instanceArb(
              dtype,
              [
                { name: "x", shape, values: floats(-2, 2) },
                { name: "v", shape: blocks.map(([, len]) => len), values: floats(-2, 2) },
              ],
              ([x, v]) => {
                const y = putSlice(x!, v!, blocks.map(([s]) => s));
                const [gx, gv] = grad(sum(exp(y)), [x!, v!]);
                return { outputs: [y, gx!, gv!] };
              },
            ),
          ),
        ),
    },
    {
      name: "conv1d, slidingSum and slidingMax along the last axis, with gradients",
      ops: ["gather", "reduce_sum", "reduce_max", "scatter_add"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 1), fc.integer({ min: 1, max: 9 })).chain(([batch, n]) =>
          fc.integer({ min: 1, max: n }).chain((k) =>
            instanceArb(
              dtype,
              [
                { name: "x", shape: [...batch, n], values: floats(-3, 3) },
                { name: "w", shape: [k], values: floats(-2, 2) },
              ],
              ([x, w]) => {
                const c = conv1d(x!, w!);
                const [gx, gw] = grad(sum(c), [x!, w!]);
                const [gs] = grad(sum(mul(slidingSum(x!, k), slidingSum(x!, k))), [x!]);
                const [gm] = grad(sum(slidingMax(x!, k)), [x!]);
                // Error scales: the sums of |terms| (each output is at most k products of the inputs).
                const absConv = conv1d(abs(x!), abs(w!));
                return {
                  outputs: [c, gx!, gw!, slidingSum(x!, k), gs!, slidingMax(x!, k), gm!],
                  scales: [mul(absConv, k), mul(sum(abs(w!)), k), mul(sum(abs(x!)), k), mul(slidingSum(abs(x!), k), k), mul(sum(abs(x!)), 2 * k * k), undefined, undefined],
                };
              },
            ),
          ),
        ),
    },
  ];
}

import fc from "fast-check";
import { abs, exp, mul } from "../../api/elementwise.ts";
import { cumsum, gather, scatterAdd } from "../../api/shape-ops.ts";
import { floats, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { accumulatedTol, exactTol } from "../tolerance.ts";

/** gather and scatter_add along a random axis with random index tensors (repeats included), cumsum forward and reverse. */
export function indexingCases(): ConformanceCase[] {
  return [
    {
      name: "gather along a random axis",
      ops: ["gather"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3).chain((shape) =>
          fc.tuple(fc.integer({ min: 0, max: shape.length - 1 }), shapeArb(0, 2)).chain(([axis, ishape]) =>
            instanceArb(
              dtype,
              [
                { name: "x", shape, values: floats(-3, 3) },
                { name: "idx", shape: ishape, values: fc.integer({ min: 0, max: shape[axis]! - 1 }), dtype: "i32", leaf: "data" },
              ],
              ([x, idx]) => ({ outputs: [gather(x!, idx!, axis), mul(gather(exp(x!), idx!, axis), 2)] }),
            ),
          ),
        ),
    },
    {
      name: "scatter_add with repeated indices",
      ops: ["scatter_add"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        fc.tuple(shapeArb(0, 2), shapeArb(1, 2), shapeArb(0, 2), fc.integer({ min: 1, max: 5 })).chain(([pre, ishape, post, size]) =>
          instanceArb(
            dtype,
            [
              { name: "u", shape: [...pre, ...ishape, ...post], values: floats(-3, 3) },
              { name: "idx", shape: ishape, values: fc.integer({ min: 0, max: size - 1 }), dtype: "i32", leaf: "data" },
            ],
            ([u, idx]) => {
              const out = scatterAdd(u!, idx!, pre.length, size);
              return { outputs: [out], scales: [mul(scatterAdd(abs(u!), idx!, pre.length, size), idx!.size)] };
            },
          ),
        ),
    },
    {
      name: "cumsum forward and reverse",
      ops: ["cumsum"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3, 6).chain((shape) =>
          fc.tuple(fc.integer({ min: 0, max: shape.length - 1 }), fc.boolean()).chain(([axis, reverse]) =>
            instanceArb(dtype, [{ name: "x", shape, values: floats(-3, 3) }], ([x]) => {
              const n = shape[axis]!;
              return {
                outputs: [cumsum(x!, axis, reverse), cumsum(x!, axis, !reverse)],
                scales: [mul(cumsum(abs(x!), axis, reverse), n), mul(cumsum(abs(x!), axis, !reverse), n)],
              };
            }),
          ),
        ),
    },
  ];
}

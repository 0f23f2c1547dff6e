import fc from "fast-check";
import { cast, mul, tanh } from "../../api/elementwise.ts";
import { sum } from "../../api/reduce.ts";
import { argsort, sort } from "../../api/sort.ts";
import { grad } from "../../autodiff/vjp.ts";
import { floats, shapeArb, smallInts } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { exactTol } from "../tolerance.ts";

// Small integers (many ties) mixed with NaN and infinities: the order's every rule gets used.
const withTies = fc.oneof({ weight: 6, arbitrary: smallInts(-3, 3) }, fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY));

/** argsort along a random axis (ties in index order, NaN last), sort through it and sort's gradient (the permutation's scatter). */
export function sortCases(): ConformanceCase[] {
  return [
    {
      name: "argsort and sort along a random axis (ties, NaN, infinities), with sort's gradient",
      ops: ["argsort", "gather", "scatter_add"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        shapeArb(1, 3, 5).chain((shape) =>
          fc.integer({ min: 0, max: shape.length - 1 }).chain((axis) =>
            instanceArb(
              dtype,
              [
                { name: "x", shape, values: withTies },
                { name: "w", shape, values: floats(-2, 2) },
              ],
              ([x, w]) => {
                const [g] = grad(sum(mul(w!, sort(x!, axis))), [x!]);
                return { outputs: [argsort(x!, axis), argsort(x!, axis, true), sort(x!, axis), g!] };
              },
            ),
          ),
        ),
    },
    {
      name: "argsort of long lines (deep heaps) of an inlined expression, and of integers",
      ops: ["argsort"],
      tolerance: exactTol,
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 300 })).chain(([rows, n]) =>
          instanceArb(dtype, [{ name: "x", shape: [rows, n], values: floats(-3, 3) }], ([x]) => ({ outputs: [argsort(tanh(x!)), argsort(x!, 0), argsort(cast(mul(x!, 4), "i32"), -1, true)] })),
        ),
    },
  ];
}

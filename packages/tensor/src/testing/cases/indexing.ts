import fc from "fast-check";
import { abs, exp, mul } from "../../api/elementwise.ts";
import { constant, data, param } from "../../api/leaves.ts";
import { sum } from "../../api/reduce.ts";
import { cumsum, gather, scatterAdd } from "../../api/shape-ops.ts";
import { grad } from "../../autodiff/vjp.ts";
import { vmap } from "../../batch/vmap.ts";
import type { Node } from "../../ir/node.ts";
import { floats, shapeArb, valuesArb } from "../arbitraries.ts";
import { instanceArb, type Built, type CaseInstance, type ConformanceCase, type InputSpec } from "../case.ts";
import { accumulatedTol, exactTol, type FloatDType } from "../tolerance.ts";

/**
 * An instance whose graph indexes with `shape` indices into `size` positions: a data leaf bound
 * per run, or (`fixed`) a constant known when the graph is compiled — backends may take different
 * paths for the two (the GPU lays a scatter's segments out on the host for a constant).
 */
function withIndices(
  dtype: FloatDType,
  shape: readonly number[],
  size: number,
  fixed: boolean,
  inputs: readonly InputSpec[],
  build: (x: Node[], idx: Node) => Built,
): fc.Arbitrary<CaseInstance> {
  const values = fc.integer({ min: 0, max: size - 1 });
  if (!fixed) {
    const idx: InputSpec = { name: "idx", shape, values, dtype: "i32", leaf: "data" };
    return instanceArb(dtype, [...inputs, idx], (x) => build(x.slice(0, -1), x[x.length - 1]!));
  }
  return valuesArb(shape, values).chain((vals) => instanceArb(dtype, inputs, (x) => build(x, constant(vals, shape, "i32"))));
}

/**
 * gather and scatter_add along a random axis with random index tensors (repeats included);
 * scatter_add with many targets left empty or hit many times, in random order; gathers of table
 * rows with their gradient; both batched over chains; cumsum forward and reverse.
 */
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
      name: "scatter_add with duplicate, empty and unsorted segments (index data or constant)",
      ops: ["scatter_add"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        fc
          // Few or many targets (a few hundred: more than one digit of the GPU's radix sort), up to 24 entries.
          .tuple(shapeArb(0, 1), fc.integer({ min: 0, max: 24 }), shapeArb(0, 1), fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 250, max: 700 })), fc.boolean())
          .chain(([pre, n, post, size, fixed]) =>
            withIndices(dtype, [n], size, fixed, [{ name: "u", shape: [...pre, n, ...post], values: floats(-3, 3) }], ([u], idx) => ({
              outputs: [scatterAdd(u!, idx, pre.length, size)],
              scales: [mul(scatterAdd(abs(u!), idx, pre.length, size), Math.max(1, n))],
            })),
          ),
    },
    {
      name: "gather of table rows and its gradient (a scatter_add of rows)",
      ops: ["gather", "scatter_add"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 16 }), fc.boolean()).chain(([rows, k, n, fixed]) =>
          withIndices(
            dtype,
            [n],
            rows,
            fixed,
            [
              { name: "table", shape: [rows, k], values: floats(-3, 3) },
              { name: "w", shape: [n, k], values: floats(-3, 3) },
            ],
            ([table, w], idx) => {
              const picked = gather(table!, idx, 0); // [n, k]: row idx[i] of the table
              const [g] = grad(sum(mul(picked, w!)), [table!]); // the rows of w summed into their table rows
              return { outputs: [picked, g!], scales: [undefined, mul(scatterAdd(abs(w!), idx, 0, rows), Math.max(1, n))] };
            },
          ),
        ),
    },
    {
      name: "scatter_add and gather batched over chains (vmap; indices shared or per chain)",
      ops: ["scatter_add", "gather"],
      tolerance: accumulatedTol,
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 6 }), fc.boolean()).chain(([chains, n, size, perChain]) =>
          instanceArb(
            dtype,
            [
              { name: "u", shape: [chains, n], values: floats(-3, 3) },
              { name: "x", shape: [chains, size], values: floats(-3, 3) },
              { name: "idx", shape: perChain ? [chains, n] : [n], values: fc.integer({ min: 0, max: size - 1 }), dtype: "i32", leaf: "data" },
            ],
            () => {
              // One chain's graph over unbatched leaves; vmap gives them the chain axis the bindings have.
              const u = param("u", [n], dtype), x = param("x", [size], dtype), idx = data("idx", [n], "i32");
              const spec = new Map<Node, number>([[u, chains], [x, chains], ...(perChain ? [[idx, chains] as const] : [])]);
              const [s, g, scale] = vmap([scatterAdd(u, idx, 0, size), gather(x, idx, 0), mul(scatterAdd(abs(u), idx, 0, size), Math.max(1, n))], spec);
              return { outputs: [s!, g!], scales: [scale!, undefined] };
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

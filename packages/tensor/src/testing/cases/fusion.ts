import fc from "fast-check";
import * as api from "../../api/elementwise.ts";
import { constant } from "../../api/leaves.ts";
import { logsumexp, max, sum } from "../../api/reduce.ts";
import { reshape } from "../../api/shape-ops.ts";
import type { Node } from "../../ir/node.ts";
import { broadcastableTo, floats, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { compositeTol } from "../tolerance.ts";

// Steps of a random chain; every one maps values in [-3, 3] back into a bounded range, so chains of any length stay finite.
const UNARY_STEPS: ((x: Node) => Node)[] = [api.tanh, api.sin, api.cos, api.sigmoid, api.neg, api.abs, (x) => api.mul(api.softplus(x), 0.5), (x) => api.log1p(api.square(x))];
const BINARY_STEPS: ((a: Node, b: Node) => Node)[] = [
  (a, b) => api.mul(api.add(a, b), 0.5),
  (a, b) => api.sub(a, api.mul(b, 0.5)),
  (a, b) => api.tanh(api.mul(a, b)),
  api.maximum,
  api.minimum,
  (a, b) => api.select(api.gt(a, b), a, api.mul(b, 0.25)),
  (a, b) => api.div(a, api.add(api.square(b), 1)),
];

/**
 * Graphs a fusing backend must get right: long elementwise chains over many inputs of mixed
 * (broadcast) shapes with constants, and reductions fused with their producers and consumers.
 */
export function fusionCases(): ConformanceCase[] {
  return [
    {
      name: "fusion: 30-op chain over 10 inputs of mixed shapes",
      ops: ["add", "mul", "tanh", "select"],
      tolerance: (dtype) => compositeTol(dtype, 30),
      arbitrary: (dtype) =>
        shapeArb(1, 3).chain((out) =>
          fc
            .tuple(
              fc.array(broadcastableTo(out), { minLength: 10, maxLength: 10 }),
              fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.boolean()), { minLength: 30, maxLength: 30 }),
            )
            .chain(([shapes, steps]) =>
              instanceArb(
                dtype,
                shapes.map((s, k) => ({ name: `x${k}`, shape: k === 0 ? out : s, values: floats(-3, 3), leaf: k % 2 ? "data" : "param" })),
                (xs) => {
                  const pool: Node[] = [...xs, constant(0.75, [], dtype)];
                  for (const [i, j, f, unary] of steps) {
                    const a = pool[i % pool.length]!, b = pool[j % pool.length]!;
                    pool.push(unary ? UNARY_STEPS[f % UNARY_STEPS.length]!(a) : BINARY_STEPS[f % BINARY_STEPS.length]!(a, b));
                  }
                  // Several outputs, some intermediate: stored from inside the fused loop.
                  const last = pool[pool.length - 1]!;
                  return { outputs: [last, pool[pool.length - 7]!, api.add(last, pool[0]!)] };
                },
              ),
            ),
        ),
    },
    {
      name: "fusion: reductions with producers and consumers",
      ops: ["reduce_sum", "reduce_logsumexp", "reduce_max", "exp"],
      tolerance: (dtype) => compositeTol(dtype, 16),
      arbitrary: (dtype) =>
        fc.tuple(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 })).chain(([n, d]) =>
          instanceArb(
            dtype,
            [
              { name: "x", shape: [n, d], values: floats(-4, 4) },
              { name: "w", shape: [d], values: floats(-2, 2), leaf: "data" },
              { name: "y", shape: [n], values: floats(0, 1), leaf: "data" },
            ],
            ([x, w, y]) => {
              // Row-wise softmax: trailing reductions whose consumers read them in the same loop.
              const lse = logsumexp(x!, -1, true);
              const p = api.exp(api.sub(x!, lse));
              const rowDot = sum(api.mul(p, w!), -1);
              // Column sums (a leading-axis reduction) of a producer chain.
              const col = sum(api.mul(api.tanh(x!), reshape(y!, [n, 1])), 0);
              // A scalar log density: sums of chains, combined after the loops.
              const eta = sum(api.mul(x!, w!), -1);
              const lp = api.add(sum(api.sub(api.mul(y!, eta), api.softplus(eta))), api.mul(-0.5, sum(api.square(w!))));
              const m = max(api.abs(api.sub(x!, api.mul(p, 2))));
              return { outputs: [rowDot, col, lp, m, p], scales: [undefined, constant(n, [], dtype), api.add(sum(api.abs(api.mul(y!, eta))), sum(api.softplus(eta))), undefined, undefined] };
            },
          ),
        ),
    },
  ];
}

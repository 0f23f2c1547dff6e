import fc from "fast-check";
import { abs, add, cast, div, exp, lgamma, log, mul, square } from "../../api/elementwise.ts";
import { lpdfSum } from "../../api/lpdf-sum.ts";
import { sum } from "../../api/reduce.ts";
import { broadcastShapes, sizeOf } from "../../ir/shape.ts";
import type { Node } from "../../ir/node.ts";
import { bits, broadcastShapesArb, floats, smallInts } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { compositeTol } from "../tolerance.ts";

/**
 * lpdf_sum of each family over broadcast shapes (y, a scalar σ, a vector of logits against one y, …),
 * with y as data (integers for the discrete families) or a float param. The error scale is the
 * count times Σ of a bound on each term's magnitude (for the normal, on (|y| + |μ|)²/σ², which
 * bounds the cancellation in y − μ), since the backends sum the expansion in their own order.
 */
export function lpdfSumCases(): ConformanceCase[] {
  const count = (xs: Node[]) => sizeOf(broadcastShapes("lpdf_sum", ...xs.map((x) => x.shape)));
  return [
    {
      name: "lpdf_sum normal: y, mu and sigma broadcast",
      ops: ["lpdf_sum"],
      tolerance: (dtype) => compositeTol(dtype, 2),
      arbitrary: (dtype) =>
        fc.tuple(broadcastShapesArb(3), fc.boolean()).chain(([[ys, ms, ss], yData]) =>
          instanceArb(
            dtype,
            [
              { name: "y", shape: ys!, values: floats(-4, 4), leaf: yData ? "data" : "param" },
              { name: "mu", shape: ms!, values: floats(-3, 3) },
              { name: "sigma", shape: ss!, values: floats(0.3, 3) },
            ],
            ([y, mu, sigma]) => {
              const bound = add(div(square(add(abs(y!), abs(mu!))), square(sigma!)), add(abs(log(sigma!)), 1));
              return { outputs: [lpdfSum("normal", y!, mu!, sigma!)], scales: [mul(sum(bound), count([y!, mu!, sigma!]))] };
            },
          ),
        ),
    },
    {
      name: "lpdf_sum bernoulli_logit: 0/1 data against logits, broadcast",
      ops: ["lpdf_sum"],
      tolerance: (dtype) => compositeTol(dtype, 2),
      arbitrary: (dtype) =>
        broadcastShapesArb(2).chain(([ys, as]) =>
          instanceArb(
            dtype,
            [
              { name: "y", shape: ys!, values: bits, dtype: "i32", leaf: "data" },
              { name: "alpha", shape: as!, values: fc.oneof(floats(-3, 3), floats(-30, 30)) },
            ],
            ([y, alpha]) => {
              const bound = add(abs(add(y!, alpha!)), 1);
              return { outputs: [lpdfSum("bernoulli_logit", y!, alpha!)], scales: [mul(sum(bound), count([y!, alpha!]))] };
            },
          ),
        ),
    },
    {
      name: "lpdf_sum poisson_log: counts against log rates, broadcast",
      ops: ["lpdf_sum"],
      tolerance: (dtype) => compositeTol(dtype, 4),
      arbitrary: (dtype) =>
        broadcastShapesArb(2).chain(([ys, as]) =>
          instanceArb(
            dtype,
            [
              { name: "y", shape: ys!, values: smallInts(0, 12), dtype: "i32", leaf: "data" },
              { name: "alpha", shape: as!, values: floats(-3, 3) },
            ],
            ([y, alpha]) => {
              const yf = cast(y!, alpha!.dtype);
              const bound = add(add(abs(mul(yf, alpha!)), exp(alpha!)), add(lgamma(add(yf, 1)), 1));
              return { outputs: [lpdfSum("poisson_log", y!, alpha!)], scales: [mul(sum(bound), count([y!, alpha!]))] };
            },
          ),
        ),
    },
  ];
}

import fc from "fast-check";
import { abs, mul } from "../../api/elementwise.ts";
import { max, reduce, sum } from "../../api/reduce.ts";
import { REDUCE_OPS, type ReduceOp } from "../../ir/ops.ts";
import { axesArb, floats, shapeArb } from "../arbitraries.ts";
import { instanceArb, type ConformanceCase } from "../case.ts";
import { accumulatedTol, exactTol, type FloatDType } from "../tolerance.ts";

// Values where each reduction stays finite and its conditioning is known.
const VALUES: Record<ReduceOp, fc.Arbitrary<number>> = {
  reduce_sum: floats(-3, 3),
  reduce_prod: fc.tuple(floats(0.5, 1.5), fc.boolean()).map(([v, s]) => (s ? -v : v)),
  reduce_max: floats(-3, 3),
  reduce_min: floats(-3, 3),
  reduce_logsumexp: floats(-20, 20),
};

/** Each reduction over a random subset of axes (leading, trailing and interleaved), with and without keepdims. */
export function reduceCases(): ConformanceCase[] {
  return REDUCE_OPS.map((op) => ({
    name: `${op} over random axes`,
    ops: [op],
    tolerance: op === "reduce_max" || op === "reduce_min" ? exactTol : accumulatedTol,
    arbitrary: (dtype: FloatDType) =>
      shapeArb(1, 4, 5).chain((shape) =>
        fc.tuple(axesArb(shape.length), fc.boolean()).chain(([axes, keep]) =>
          instanceArb(dtype, [{ name: "x", shape, values: VALUES[op] }], ([x]) => {
            const count = axes.reduce((p, a) => p * shape[a]!, 1);
            const out = reduce(op, x!, axes, keep);
            // Error scale: a sum is conditioned by Σ|x| and grows with the count; a product by its
            // own magnitude times the count; logsumexp by its largest term.
            const scale =
              op === "reduce_sum" ? mul(sum(abs(x!), axes, keep), count)
              : op === "reduce_prod" ? mul(abs(out), count)
              : op === "reduce_logsumexp" ? mul(max(abs(x!), axes, keep), 2)
              : undefined;
            return { outputs: [out], scales: [scale] };
          }),
        ),
      ),
  }));
}

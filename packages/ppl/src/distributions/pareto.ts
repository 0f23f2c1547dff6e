import { add, div, ge, gt, log, log1mExp, mul, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Stan's pareto(y_min, alpha): y ≥ y_min > 0 with shape alpha, log p(y) = log alpha + alpha log y_min − (alpha + 1) log y. */
export function pareto(yMin: Operand, alpha: Operand): Distribution {
  checkParam("pareto", "yMin", yMin, isPositive, "positive");
  checkParam("pareto", "alpha", alpha, isPositive, "positive");
  const batchShape = batchShapeOf("pareto", { yMin, alpha });
  return {
    name: "pareto",
    support: { kind: "lower", lower: yMin },
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => restrict(ge(y, yMin), sub(add(logOf(alpha), mul(alpha, logOf(yMin))), mul(add(alpha, 1), log(y)))),
    // 1 − F(y) = (y_min/y)^alpha above y_min, whichever of y and y_min are nodes.
    lcdf: (y) => above(y, yMin, mul(2, yMin), (ys) => log1mExp(mul(alpha, sub(logOf(yMin), log(ys)))), -Infinity),
    lccdf: (y) => above(y, yMin, mul(2, yMin), (ys) => mul(alpha, sub(logOf(yMin), log(ys))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [yMin, alpha], bindings, (r, [m, a]) => m! * Math.pow(r.uniform(), -1 / a!)),
    // The mean is infinite for alpha ≤ 1, the variance for alpha ≤ 2.
    mean: () => full(select(gt(alpha, 1), div(mul(alpha, yMin), sub(alpha, 1)), Infinity), batchShape),
    variance: () =>
      full(select(gt(alpha, 2), div(mul(square(yMin), alpha), mul(square(sub(alpha, 1)), sub(alpha, 2))), Infinity), batchShape),
  };
}

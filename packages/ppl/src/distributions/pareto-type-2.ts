import { add, div, ge, gt, log1mExp, log1p, mul, neg, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, logOf, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Stan's pareto_type_2(mu, lambda, alpha): y ≥ mu, log p(y) = log alpha − log lambda − (alpha + 1) log(1 + (y − mu)/lambda). */
export function paretoType2(mu: Operand, lambda: Operand, alpha: Operand): Distribution {
  checkParam("paretoType2", "mu", mu, isFiniteNumber, "finite");
  checkParam("paretoType2", "lambda", lambda, isPositive, "positive");
  checkParam("paretoType2", "alpha", alpha, isPositive, "positive");
  const batchShape = batchShapeOf("paretoType2", { mu, lambda, alpha });
  return {
    name: "pareto_type_2",
    support: { kind: "lower", lower: mu },
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => restrict(ge(y, mu), sub(sub(logOf(alpha), logOf(lambda)), mul(add(alpha, 1), log1p(div(sub(y, mu), lambda))))),
    // 1 − F(y) = (1 + (y − mu)/lambda)^{−alpha} above mu.
    lcdf: (y) => above(y, mu, add(mu, lambda), (ys) => log1mExp(neg(mul(alpha, log1p(div(sub(ys, mu), lambda))))), -Infinity),
    lccdf: (y) => above(y, mu, add(mu, lambda), (ys) => neg(mul(alpha, log1p(div(sub(ys, mu), lambda)))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, lambda, alpha], bindings, (r, [m, l, a]) => m! + l! * Math.expm1(-Math.log(r.uniform()) / a!)),
    mean: () => full(select(gt(alpha, 1), add(mu, div(lambda, sub(alpha, 1))), Infinity), batchShape),
    variance: () =>
      full(select(gt(alpha, 2), div(mul(square(lambda), alpha), mul(square(sub(alpha, 1)), sub(alpha, 2))), Infinity), batchShape),
  };
}

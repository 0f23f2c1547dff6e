import { div, ge, lgamma, mul, square, sub, add, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate } from "./variates.ts";

/** Gamma(shape alpha, rate beta). */
export function gamma(alpha: Operand, beta: Operand): Distribution {
  checkParam("gamma", "alpha", alpha, isPositive, "positive");
  checkParam("gamma", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("gamma", { alpha, beta });
  return {
    name: "gamma",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(ge(x, 0), gammaLogpdf(x, alpha, beta)),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [alpha, beta], bindings, (r, [a, b]) => gammaVariate(r, a!, b!)),
    mean: () => full(div(alpha, beta), batchShape),
    variance: () => full(div(alpha, square(beta)), batchShape),
  };
}

/** log Gamma(x | alpha, beta) for x ≥ 0, as a graph. */
export function gammaLogpdf(x: Operand, alpha: Operand, beta: Operand) {
  return sub(add(sub(mul(alpha, logOf(beta)), lgamma(alpha)), xlogy(sub(alpha, 1), x)), mul(beta, x));
}

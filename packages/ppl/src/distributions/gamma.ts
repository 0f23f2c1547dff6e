import { add, div, gammaP, gammaQ, ge, lgamma, log, mul, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate } from "./variates.ts";
import { above } from "./cdf-helpers.ts";

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
    // The regularised incomplete gamma functions, differentiable in x, alpha and beta.
    lcdf: (x) => above(x, 0, 1, (xs) => log(gammaP(alpha, mul(beta, xs))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => log(gammaQ(alpha, mul(beta, xs))), 0),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [alpha, beta], bindings, (r, [a, b]) => gammaVariate(r, a!, b!)),
    mean: () => full(div(alpha, beta), batchShape),
    variance: () => full(div(alpha, square(beta)), batchShape),
  };
}

/** log Gamma(x | alpha, beta) for x ≥ 0, as a graph. */
export function gammaLogpdf(x: Operand, alpha: Operand, beta: Operand) {
  return sub(add(sub(mul(alpha, logOf(beta)), lgamma(alpha)), xlogy(sub(alpha, 1), x)), mul(beta, x));
}

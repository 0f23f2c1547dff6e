import { add, div, gammaP, gammaQ, gt, lgamma, log, mul, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { logGammaVariate } from "./variates.ts";
import { above } from "./cdf-helpers.ts";

/** InverseGamma(shape alpha, scale beta): 1/x ~ Gamma(alpha, beta). */
export function inverseGamma(alpha: Operand, beta: Operand): Distribution {
  checkParam("inverseGamma", "alpha", alpha, isPositive, "positive");
  checkParam("inverseGamma", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("inverseGamma", { alpha, beta });
  return {
    name: "inv_gamma",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) =>
      restrict(gt(x, 0), sub(sub(sub(mul(alpha, logOf(beta)), lgamma(alpha)), mul(add(alpha, 1), log(x))), div(beta, x))),
    // F(x) = Q(alpha, beta/x).
    lcdf: (x) => above(x, 0, 1, (xs) => log(gammaQ(alpha, div(beta, xs))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => log(gammaP(alpha, div(beta, xs))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [alpha, beta], bindings, (r, [a, b]) => b! * Math.exp(-logGammaVariate(r, a!))),
    mean: () => full(select(gt(alpha, 1), div(beta, sub(alpha, 1)), Infinity), batchShape),
    variance: () =>
      full(select(gt(alpha, 2), div(square(beta), mul(square(sub(alpha, 1)), sub(alpha, 2))), Infinity), batchShape),
  };
}


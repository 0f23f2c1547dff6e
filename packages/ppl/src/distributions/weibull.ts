import { add, div, exp, ge, lgamma, log1mExp, mul, neg, pow, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Weibull(shape alpha, scale sigma), as Stan's weibull. */
export function weibull(alpha: Operand, sigma: Operand): Distribution {
  checkParam("weibull", "alpha", alpha, isPositive, "positive");
  checkParam("weibull", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("weibull", { alpha, sigma });
  const gammaOf = (k: number) => exp(lgamma(add(1, div(k, alpha))));
  return {
    name: "weibull",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => {
      const z = div(x, sigma);
      return restrict(ge(x, 0), sub(add(sub(logOf(alpha), logOf(sigma)), xlogy(sub(alpha, 1), z)), pow(z, alpha)));
    },
    lcdf: (x) => above(x, 0, 1, (xs) => log1mExp(neg(pow(div(xs, sigma), alpha))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => neg(pow(div(xs, sigma), alpha)), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [alpha, sigma], bindings, (r, [k, s]) => s! * Math.pow(-Math.log(r.uniform()), 1 / k!)),
    mean: () => full(mul(sigma, gammaOf(1)), batchShape),
    variance: () => full(mul(square(sigma), sub(gammaOf(2), square(gammaOf(1)))), batchShape),
  };
}


import { add, div, exp, gt, lgamma, log, log1mExp, mul, neg, pow, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Stan's frechet(alpha, sigma): y > 0, shape alpha, scale sigma; log p(y) = log(alpha/sigma) − (1 + alpha) log(y/sigma) − (y/sigma)^{−alpha}. */
export function frechet(alpha: Operand, sigma: Operand): Distribution {
  checkParam("frechet", "alpha", alpha, isPositive, "positive");
  checkParam("frechet", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("frechet", { alpha, sigma });
  // Γ(1 − j/alpha), at arguments kept positive where alpha ≤ j (there the moment is infinite and this value unused).
  const gammaOf = (j: number) => exp(lgamma(sub(1, div(j, select(gt(alpha, j), alpha, 2 * j)))));
  return {
    name: "frechet",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const z = div(y, sigma);
      return restrict(gt(y, 0), sub(sub(sub(logOf(alpha), logOf(sigma)), mul(add(alpha, 1), log(z))), pow(z, neg(alpha))));
    },
    // F(y) = exp(−(y/sigma)^{−alpha}) on y > 0.
    lcdf: (y) => above(y, 0, 1, (ys) => neg(pow(div(ys, sigma), neg(alpha))), -Infinity),
    lccdf: (y) => above(y, 0, 1, (ys) => log1mExp(neg(pow(div(ys, sigma), neg(alpha)))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [alpha, sigma], bindings, (r, [a, s]) => s! * Math.pow(-Math.log(r.uniform()), -1 / a!)),
    mean: () => full(select(gt(alpha, 1), mul(sigma, gammaOf(1)), Infinity), batchShape),
    variance: () => full(select(gt(alpha, 2), mul(square(sigma), sub(gammaOf(2), square(gammaOf(1)))), Infinity), batchShape),
  };
}

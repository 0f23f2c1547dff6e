import { add, div, gammaP, gammaQ, gt, lgamma, log, mul, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, LOG_TWO, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { logGammaVariate } from "./variates.ts";
import { above } from "./cdf-helpers.ts";

/** Stan's inv_chi_square(nu): 1/y ~ χ²(nu); log p(y) = −(nu/2) log 2 − lgamma(nu/2) − (nu/2 + 1) log y − 1/(2y). */
export function inverseChiSquared(nu: Operand): Distribution {
  checkParam("inverseChiSquared", "nu", nu, isPositive, "positive");
  const batchShape = batchShapeOf("inverseChiSquared", { nu });
  const half = () => mul(0.5, nu);
  return {
    name: "inv_chi_square",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) =>
      restrict(gt(y, 0), sub(sub(sub(mul(-0.5 * LOG_TWO, nu), lgamma(half())), mul(add(half(), 1), log(y))), div(0.5, y))),
    // 1/y ~ Gamma(nu/2, rate 1/2), so F(y) = Q(nu/2, 1/(2y)).
    lcdf: (y) => above(y, 0, 1, (ys) => log(gammaQ(half(), div(0.5, ys))), -Infinity),
    lccdf: (y) => above(y, 0, 1, (ys) => log(gammaP(half(), div(0.5, ys))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [nu], bindings, (r, [n]) => 0.5 * Math.exp(-logGammaVariate(r, n! / 2))),
    mean: () => full(select(gt(nu, 2), div(1, sub(nu, 2)), Infinity), batchShape),
    variance: () => full(select(gt(nu, 4), div(2, mul(square(sub(nu, 2)), sub(nu, 4))), Infinity), batchShape),
  };
}

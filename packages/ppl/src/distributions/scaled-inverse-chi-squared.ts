import { add, div, gammaP, gammaQ, gt, lgamma, log, mul, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { logGammaVariate } from "./variates.ts";
import { above } from "./cdf-helpers.ts";

/**
 * Stan's scaled_inv_chi_square(nu, s): nu s²/y ~ χ²(nu), an InvGamma(nu/2, nu s²/2);
 * log p(y) = (nu/2) log(nu/2) − lgamma(nu/2) + nu log s − (nu/2 + 1) log y − nu s²/(2y).
 */
export function scaledInverseChiSquared(nu: Operand, s: Operand): Distribution {
  checkParam("scaledInverseChiSquared", "nu", nu, isPositive, "positive");
  checkParam("scaledInverseChiSquared", "s", s, isPositive, "positive");
  const batchShape = batchShapeOf("scaledInverseChiSquared", { nu, s });
  const half = () => mul(0.5, nu);
  return {
    name: "scaled_inv_chi_square",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const norm = add(sub(mul(half(), logOf(half())), lgamma(half())), mul(nu, logOf(s)));
      return restrict(gt(y, 0), sub(sub(norm, mul(add(half(), 1), log(y))), div(mul(half(), square(s)), y)));
    },
    // An InvGamma(nu/2, nu s²/2): F(y) = Q(nu/2, nu s²/(2y)).
    lcdf: (y) => above(y, 0, 1, (ys) => log(gammaQ(half(), div(mul(half(), square(s)), ys))), -Infinity),
    lccdf: (y) => above(y, 0, 1, (ys) => log(gammaP(half(), div(mul(half(), square(s)), ys))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [nu, s], bindings, (r, [n, sc]) => (n! * sc! * sc! * 0.5) * Math.exp(-logGammaVariate(r, n! / 2))),
    mean: () => full(select(gt(nu, 2), div(mul(nu, square(s)), sub(nu, 2)), Infinity), batchShape),
    variance: () =>
      full(select(gt(nu, 4), div(mul(2, square(mul(nu, square(s)))), mul(square(sub(nu, 2)), sub(nu, 4))), Infinity), batchShape),
  };
}

import { gammaP, gammaQ, ge, log, mul, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { gammaLogpdf } from "./gamma.ts";
import { batchShapeOf, checkParam, full, isPositive, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate } from "./variates.ts";
import { above } from "./cdf-helpers.ts";

/** Chi-squared with nu degrees of freedom (Gamma(nu/2, 1/2)). */
export function chiSquared(nu: Operand): Distribution {
  checkParam("chiSquared", "nu", nu, isPositive, "positive");
  const batchShape = batchShapeOf("chiSquared", { nu });
  return {
    name: "chi_square",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(ge(x, 0), gammaLogpdf(x, mul(0.5, nu), 0.5)),
    // F(x) = P(nu/2, x/2).
    lcdf: (x) => above(x, 0, 1, (xs) => log(gammaP(mul(0.5, nu), mul(0.5, xs))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => log(gammaQ(mul(0.5, nu), mul(0.5, xs))), 0),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [nu], bindings, (r, [n]) => 2 * gammaVariate(r, n! / 2)),
    mean: () => full(nu, batchShape),
    variance: () => full(mul(2, nu), batchShape),
  };
}

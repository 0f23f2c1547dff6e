import { ge, mul, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { gammaLogpdf } from "./gamma.ts";
import { batchShapeOf, checkParam, full, isPositive, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate } from "./variates.ts";

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
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [nu], bindings, (r, [n]) => 2 * gammaVariate(r, n! / 2)),
    mean: () => full(nu, batchShape),
    variance: () => full(mul(2, nu), batchShape),
  };
}

import { add, atan2, div, ge, log, type Operand } from "@ppl/tensor";
import { cauchyLogpdf } from "./cauchy.ts";
import type { Distribution } from "./distribution.ts";
import { halfLocation } from "./half-location.ts";
import { batchShapeOf, checkParam, isPositive, LOG_PI, LOG_TWO, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Half-Cauchy: Cauchy(0, sigma) restricted to x ≥ 0. Accepts (sigma) or Stan's (0, sigma). */
export function halfCauchy(...args: [sigma: Operand] | [mu: 0, sigma: Operand]): Distribution {
  const sigma = halfLocation("halfCauchy", args);
  checkParam("halfCauchy", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("halfCauchy", { sigma });
  return {
    name: "half_cauchy",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(ge(x, 0), add(cauchyLogpdf(x, 0, sigma), LOG_TWO)),
    // F(x) = (2/π)·atan(x/σ) and 1 − F(x) = (2/π)·atan(σ/x), both as atan2 so that neither tail cancels.
    lcdf: (x) => above(x, 0, 1, (xs) => add(log(atan2(div(xs, sigma), 1)), LOG_TWO - LOG_PI), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => add(log(atan2(1, div(xs, sigma))), LOG_TWO - LOG_PI), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [sigma], bindings, (r, [s]) => s! * Math.tan(0.5 * Math.PI * r.uniform())),
  };
}

import { add, ge, type Operand } from "@ppl/tensor";
import { cauchyLogpdf } from "./cauchy.ts";
import type { Distribution } from "./distribution.ts";
import { halfLocation } from "./half-location.ts";
import { batchShapeOf, checkParam, isPositive, LOG_TWO, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

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
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [sigma], bindings, (r, [s]) => s! * Math.tan(0.5 * Math.PI * r.uniform())),
  };
}

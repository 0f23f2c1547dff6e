import { add, div, ge, log1mExp, logPhi, mul, neg, square, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, LOG_TWO, POSITIVE, restrict } from "./helpers.ts";
import { normalLogpdf } from "./normal.ts";
import { sampleScalar } from "./sampling.ts";
import { halfLocation } from "./half-location.ts";
import { above } from "./cdf-helpers.ts";

/** Half-normal: Normal(0, sigma) restricted to x ≥ 0 (twice the density). Accepts (sigma) or Stan's (0, sigma). */
export function halfNormal(...args: [sigma: Operand] | [mu: 0, sigma: Operand]): Distribution {
  const sigma = halfLocation("halfNormal", args);
  checkParam("halfNormal", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("halfNormal", { sigma });
  return {
    name: "half_normal",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(ge(x, 0), add(normalLogpdf(x, 0, sigma), LOG_TWO)),
    // 1 − F(x) = 2Φ(−x/σ): the upper tail through logPhi, F itself as log(1 − that).
    lcdf: (x) => above(x, 0, 1, (xs) => log1mExp(add(LOG_TWO, logPhi(neg(div(xs, sigma))))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => add(LOG_TWO, logPhi(neg(div(xs, sigma)))), 0),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [sigma], bindings, (r, [s]) => Math.abs(s! * r.normal())),
    mean: () => full(mul(sigma, Math.sqrt(2 / Math.PI)), batchShape),
    variance: () => full(mul(square(sigma), 1 - 2 / Math.PI), batchShape),
  };
}

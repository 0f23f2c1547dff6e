import { div, ge, log, log1mExp, mul, neg, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Stan's rayleigh(sigma): y ≥ 0, log p(y) = log y − 2 log sigma − y²/(2 sigma²). */
export function rayleigh(sigma: Operand): Distribution {
  checkParam("rayleigh", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("rayleigh", { sigma });
  return {
    name: "rayleigh",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => restrict(ge(y, 0), sub(sub(log(y), mul(2, logOf(sigma))), div(square(y), mul(2, square(sigma))))),
    // 1 − F(y) = exp(−y²/(2 sigma²)) on y > 0.
    lcdf: (y) => above(y, 0, 1, (ys) => log1mExp(neg(div(square(ys), mul(2, square(sigma))))), -Infinity),
    lccdf: (y) => above(y, 0, 1, (ys) => neg(div(square(ys), mul(2, square(sigma)))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [sigma], bindings, (r, [s]) => s! * Math.sqrt(-2 * Math.log(r.uniform()))),
    mean: () => full(mul(Math.sqrt(Math.PI / 2), sigma), batchShape),
    variance: () => full(mul((4 - Math.PI) / 2, square(sigma)), batchShape),
  };
}

import { add, atan2, div, log, log1p, neg, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, isFiniteNumber, isPositive, LOG_PI, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/** Cauchy(mu, sigma); it has no mean or variance. */
export function cauchy(mu: Operand, sigma: Operand): Distribution {
  checkParam("cauchy", "mu", mu, isFiniteNumber, "finite");
  checkParam("cauchy", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("cauchy", { mu, sigma });
  return {
    name: "cauchy",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => cauchyLogpdf(x, mu, sigma),
    // F(z) = atan2(1, −z)/π, which keeps its relative accuracy in both tails (unlike ½ + atan(z)/π).
    lcdf: (x) => sub(log(atan2(1, div(sub(mu, x), sigma))), LOG_PI),
    lccdf: (x) => sub(log(atan2(1, div(sub(x, mu), sigma))), LOG_PI),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, sigma], bindings, (r, [m, s]) => m! + s! * Math.tan(Math.PI * (r.uniform() - 0.5))),
  };
}

/** log Cauchy(x | mu, sigma) as a graph. */
export function cauchyLogpdf(x: Operand, mu: Operand, sigma: Operand) {
  return sub(neg(add(logOf(sigma), LOG_PI)), log1p(square(div(sub(x, mu), sigma))));
}

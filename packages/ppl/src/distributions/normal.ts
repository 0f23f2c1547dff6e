import { add, div, logPhi, lpdfSum, mul, neg, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, HALF_LOG_TWO_PI, isFiniteNumber, isPositive, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/** Normal(mu, sigma) with sigma the standard deviation. */
export function normal(mu: Operand, sigma: Operand): Distribution {
  checkParam("normal", "mu", mu, isFiniteNumber, "finite");
  checkParam("normal", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("normal", { mu, sigma });
  return {
    name: "normal",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => normalLogpdf(x, mu, sigma),
    // One reciprocal of sigma per entry, and the constant (n·log sigma for a scalar sigma) added once, as Stan does.
    logpdfSum: (x) => lpdfSum("normal", x, mu, sigma),
    lcdf: (x) => logPhi(div(sub(x, mu), sigma)),
    lccdf: (x) => logPhi(div(sub(mu, x), sigma)),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [mu, sigma], bindings, (r, [m, s]) => m! + s! * r.normal()),
    mean: () => full(mu, batchShape),
    variance: () => full(square(sigma), batchShape),
  };
}

/** log N(x | mu, sigma) as a graph, shared by the distributions built on the normal. */
export function normalLogpdf(x: Operand, mu: Operand, sigma: Operand) {
  const z = div(sub(x, mu), sigma);
  return sub(neg(add(mul(0.5, square(z)), logOf(sigma))), HALF_LOG_TWO_PI);
}

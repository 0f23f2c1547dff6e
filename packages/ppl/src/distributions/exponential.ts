import { div, ge, log1mExp, mul, neg, reciprocal, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** Exponential with rate beta. */
export function exponential(rate: Operand): Distribution {
  checkParam("exponential", "rate", rate, isPositive, "positive");
  const batchShape = batchShapeOf("exponential", { rate });
  return {
    name: "exponential",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(ge(x, 0), sub(logOf(rate), mul(rate, x))),
    lcdf: (x) => above(x, 0, 1, (xs) => log1mExp(neg(mul(rate, xs))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => neg(mul(rate, xs)), 0),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [rate], bindings, (r, [b]) => -Math.log(r.uniform()) / b!),
    mean: () => full(reciprocal(rate), batchShape),
    variance: () => full(div(1, square(rate)), batchShape),
  };
}

import { add, and, ge, le, logSigmoid, mul, neg, sigmoid, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isNonNegativeInt, isProbability, lchoose, restrict, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { binomialVariate } from "./variates.ts";

/** Binomial(n trials, success probability p). */
export function binomial(n: Operand, p: Operand): Distribution {
  checkParam("binomial", "n", n, isNonNegativeInt, "a non-negative integer");
  checkParam("binomial", "p", p, isProbability, "in [0, 1]");
  const batchShape = batchShapeOf("binomial", { n, p });
  return {
    name: "binomial",
    support: { kind: "int_interval", lower: 0, upper: n },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) => restrict(and(ge(k, 0), le(k, n)), add(lchoose(n, k), add(xlogy(k, p), xlogy(sub(n, k), sub(1, p))))),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [n, p], bindings, (r, [m, q]) => binomialVariate(r, m!, q!)),
    mean: () => full(mul(n, p), batchShape),
    variance: () => full(mul(mul(n, p), sub(1, p)), batchShape),
  };
}

/** Binomial with the success probability on the logit scale. */
export function binomialLogit(n: Operand, alpha: Operand): Distribution {
  checkParam("binomialLogit", "n", n, isNonNegativeInt, "a non-negative integer");
  checkParam("binomialLogit", "alpha", alpha, isFiniteNumber, "finite");
  const batchShape = batchShapeOf("binomialLogit", { n, alpha });
  return {
    name: "binomial_logit",
    support: { kind: "int_interval", lower: 0, upper: n },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) =>
      restrict(and(ge(k, 0), le(k, n)), add(lchoose(n, k), add(mul(k, logSigmoid(alpha)), mul(sub(n, k), logSigmoid(neg(alpha)))))),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [n, alpha], bindings, (r, [m, a]) => binomialVariate(r, m!, 1 / (1 + Math.exp(-a!)))),
    mean: () => full(mul(n, sigmoid(alpha)), batchShape),
    variance: () => full(mul(mul(n, sigmoid(alpha)), sigmoid(neg(alpha))), batchShape),
  };
}

import {
  add, and, ge, le, log, log1p, logSigmoid, lpdfSum, lt, mul, neg, select, sigmoid, sub, type Node, type Operand,
} from "@ppl/tensor";
import type { Distribution, Support } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isProbability, restrict, restrictAll, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

const ZERO_ONE: Support = { kind: "int_interval", lower: 0, upper: 1 };

/** Bernoulli with success probability p; outcomes 0 and 1. */
export function bernoulli(p: Operand): Distribution {
  checkParam("bernoulli", "p", p, isProbability, "in [0, 1]");
  const batchShape = batchShapeOf("bernoulli", { p });
  return {
    name: "bernoulli",
    support: ZERO_ONE,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(and(ge(x, 0), le(x, 1)), add(xlogy(x, p), xlogy(sub(1, x), sub(1, p)))),
    lcdf: (k) => bernoulliLogCdf(k, log1p(neg(p)), log(p)).lower,
    lccdf: (k) => bernoulliLogCdf(k, log1p(neg(p)), log(p)).upper,
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [p], bindings, (r, [q]) => (r.uniform() < q! ? 1 : 0)),
    mean: () => full(p, batchShape),
    variance: () => full(mul(p, sub(1, p)), batchShape),
  };
}

/** Bernoulli with the success probability given on the logit scale (stable for large |alpha|). */
export function bernoulliLogit(alpha: Operand): Distribution {
  checkParam("bernoulliLogit", "alpha", alpha, isFiniteNumber, "finite");
  const batchShape = batchShapeOf("bernoulliLogit", { alpha });
  return {
    name: "bernoulli_logit",
    support: ZERO_ONE,
    discrete: true,
    batchShape,
    eventShape: [],
    // log σ(±alpha) with the sign 2x − 1 (Stan's form): one log-sigmoid an outcome instead of two,
    // and for x in {0, 1} the same value and gradient, bit for bit, as x·log σ(α) + (1 − x)·log σ(−α).
    logpdf: (x) => restrict(and(ge(x, 0), le(x, 1)), logSigmoid(mul(sub(mul(2, x), 1), alpha))),
    // The value and its derivative share one exp(−|t|) (the expansion's log-sigmoid and sigmoid take one each).
    logpdfSum: (x) => restrictAll(and(ge(x, 0), le(x, 1)), lpdfSum("bernoulli_logit", x, alpha)),
    lcdf: (k) => bernoulliLogCdf(k, logSigmoid(neg(alpha)), logSigmoid(alpha)).lower,
    lccdf: (k) => bernoulliLogCdf(k, logSigmoid(neg(alpha)), logSigmoid(alpha)).upper,
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [alpha], bindings, (r, [a]) => (r.uniform() < 1 / (1 + Math.exp(-a!)) ? 1 : 0)),
    mean: () => full(sigmoid(alpha), batchShape),
    variance: () => full(mul(sigmoid(alpha), sigmoid(neg(alpha))), batchShape),
  };
}

// P(Y ≤ k) is 0 below 0, 1 − p on [0, 1) and 1 from 1 on; logFail = log(1 − p), logSuccess = log p.
function bernoulliLogCdf(k: Operand, logFail: Node, logSuccess: Node): { lower: Node; upper: Node } {
  const below = lt(k, 0);
  const zero = lt(k, 1);
  return {
    lower: select(below, -Infinity, select(zero, logFail, 0)),
    upper: select(below, 0, select(zero, logSuccess, -Infinity)),
  };
}

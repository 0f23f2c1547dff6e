import {
  add, and, betainc, floor, ge, le, log, logSigmoid, lt, mul, neg, select, sigmoid, sub, type Node, type Operand,
} from "@ppl/tensor";
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
    lcdf: (k) => binomialLogCdf(k, n, p, sub(1, p)).lower,
    lccdf: (k) => binomialLogCdf(k, n, p, sub(1, p)).upper,
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
    lcdf: (k) => binomialLogCdf(k, n, sigmoid(alpha), sigmoid(neg(alpha))).lower,
    lccdf: (k) => binomialLogCdf(k, n, sigmoid(alpha), sigmoid(neg(alpha))).upper,
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [n, alpha], bindings, (r, [m, a]) => binomialVariate(r, m!, 1 / (1 + Math.exp(-a!)))),
    mean: () => full(mul(n, sigmoid(alpha)), batchShape),
    variance: () => full(mul(mul(n, sigmoid(alpha)), sigmoid(neg(alpha))), batchShape),
  };
}

/**
 * log P(Y ≤ k) = log I_{1−p}(n − k, k + 1) and log P(Y > k) = log I_p(k + 1, n − k) for 0 ≤ k < n
 * (k rounded down), with q = 1 − p passed in so the logit form keeps its precision.
 */
function binomialLogCdf(k: Operand, n: Operand, p: Operand, q: Operand): { lower: Node; upper: Node } {
  const kf = floor(k);
  const inside = and(ge(kf, 0), lt(kf, n));
  const ks = select(inside, kf, 0);
  const rest = select(inside, sub(n, kf), 1);
  const below = lt(kf, 0);
  return {
    lower: select(inside, log(betainc(rest, add(ks, 1), q)), select(below, -Infinity, 0)),
    upper: select(inside, log(betainc(add(ks, 1), rest, p)), select(below, 0, -Infinity)),
  };
}

import { add, betainc, div, floor, ge, lgamma, log, log1p, mul, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate, poissonVariate } from "./variates.ts";

/** Stan's neg_binomial(alpha, beta): a Poisson whose rate is Gamma(alpha, beta); mean alpha/beta. */
export function negativeBinomial(alpha: Operand, beta: Operand): Distribution {
  checkParam("negativeBinomial", "alpha", alpha, isPositive, "positive");
  checkParam("negativeBinomial", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("negativeBinomial", { alpha, beta });
  return {
    name: "neg_binomial",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) =>
      restrict(ge(k, 0), sub(add(nbCoefficient(k, alpha), mul(alpha, sub(logOf(beta), log1p(beta)))), mul(k, log1p(beta)))),
    // p = beta/(1 + beta) is the success probability of each trial.
    lcdf: (k) => negativeBinomialLogCdf(k, alpha, div(beta, add(1, beta)), div(1, add(1, beta))).lower,
    lccdf: (k) => negativeBinomialLogCdf(k, alpha, div(beta, add(1, beta)), div(1, add(1, beta))).upper,
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [alpha, beta], bindings, (r, [a, b]) => poissonVariate(r, gammaVariate(r, a!, b!))),
    mean: () => full(div(alpha, beta), batchShape),
    variance: () => full(div(mul(alpha, add(beta, 1)), square(beta)), batchShape),
  };
}

/** Stan's neg_binomial_2(mu, phi): mean mu, variance mu + mu²/phi. */
export function negativeBinomial2(mu: Operand, phi: Operand): Distribution {
  checkParam("negativeBinomial2", "mu", mu, isPositive, "positive");
  checkParam("negativeBinomial2", "phi", phi, isPositive, "positive");
  const batchShape = batchShapeOf("negativeBinomial2", { mu, phi });
  return {
    name: "neg_binomial_2",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) => {
      const logTotal = log(add(mu, phi));
      return restrict(ge(k, 0), add(add(nbCoefficient(k, phi), mul(phi, sub(logOf(phi), logTotal))), mul(k, sub(logOf(mu), logTotal))));
    },
    lcdf: (k) => negativeBinomialLogCdf(k, phi, div(phi, add(mu, phi)), div(mu, add(mu, phi))).lower,
    lccdf: (k) => negativeBinomialLogCdf(k, phi, div(phi, add(mu, phi)), div(mu, add(mu, phi))).upper,
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, phi], bindings, (r, [m, f]) => poissonVariate(r, gammaVariate(r, f!, f! / m!))),
    mean: () => full(mu, batchShape),
    variance: () => full(add(mu, div(square(mu), phi)), batchShape),
  };
}

// log C(k + r − 1, k) = lgamma(k + r) − lgamma(k + 1) − lgamma(r).
function nbCoefficient(k: Operand, r: Operand) {
  return sub(sub(lgamma(add(k, r)), lgamma(add(k, 1))), lgamma(r));
}

// log P(Y ≤ k) = log I_p(r, ⌊k⌋ + 1) and log P(Y > k) = log I_{1−p}(⌊k⌋ + 1, r), with q = 1 − p:
// differentiable in p (so in mu and beta) and in the size r (alpha, phi).
function negativeBinomialLogCdf(k: Operand, r: Operand, p: Node, q: Node): { lower: Node; upper: Node } {
  const kf = floor(k);
  const inside = ge(kf, 0);
  const b = add(select(inside, kf, 0), 1);
  return {
    lower: select(inside, log(betainc(r, b, p)), -Infinity),
    upper: select(inside, log(betainc(b, r, q)), 0),
  };
}

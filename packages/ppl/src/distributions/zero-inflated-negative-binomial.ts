import { add, div, eq, ge, lgamma, log, log1p, mul, neg, select, sub, type Operand, type Shape } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate, poissonVariate } from "./variates.ts";
import { logitWeight, probabilityWeight, type ZeroWeight } from "./zero-weight.ts";

/**
 * Zero-inflated negative binomial(theta, mu, phi): a structural zero with probability theta,
 * otherwise Stan's neg_binomial_2(mu, phi) (mean mu, variance mu + mu²/phi).
 */
export function zeroInflatedNegativeBinomial(theta: Operand, mu: Operand, phi: Operand): Distribution {
  const w = probabilityWeight("zeroInflatedNegativeBinomial", "theta", theta);
  return zeroInflatedNegativeBinomialOf("zero_inflated_neg_binomial_2", "zeroInflatedNegativeBinomial", w, mu, phi, { theta, mu, phi });
}

/** Zero-inflated negative binomial with the structural zero's probability on the logit scale, theta = σ(alpha), exact at any alpha. */
export function zeroInflatedNegativeBinomialLogit(alpha: Operand, mu: Operand, phi: Operand): Distribution {
  const w = logitWeight("zeroInflatedNegativeBinomialLogit", "alpha", alpha);
  return zeroInflatedNegativeBinomialOf("zero_inflated_neg_binomial_2_logit", "zeroInflatedNegativeBinomialLogit", w, mu, phi, { alpha, mu, phi });
}

function zeroInflatedNegativeBinomialOf(
  name: string, dist: string, w: ZeroWeight, mu: Operand, phi: Operand, params: Record<string, Operand>,
): Distribution {
  checkParam(dist, "mu", mu, isPositive, "positive");
  checkParam(dist, "phi", phi, isPositive, "positive");
  const batchShape: Shape = batchShapeOf(dist, params);
  return {
    name,
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      const zero = w.logSum(w.logZero, add(w.logKeep, negBinomial2LogZero(mu, phi)));
      return restrict(ge(n, 0), select(eq(n, 0), zero, add(w.logKeep, negBinomial2Logpmf(n, mu, phi))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [w.param, mu, phi], bindings, (r, [t, m, f]) =>
        r.uniform() < w.probability(t!) ? 0 : poissonVariate(r, gammaVariate(r, f!, f! / m!)),
      ),
    mean: () => full(mul(w.keep, mu), batchShape),
    variance: () => full(mul(mul(w.keep, mu), add(add(1, mul(w.zero, mu)), div(mu, phi))), batchShape),
  };
}

/** log NegBinomial2(n | mu, phi) = log C(n + phi − 1, n) + phi log(phi/(mu + phi)) + n log(mu/(mu + phi)), as a graph. */
export function negBinomial2Logpmf(n: Operand, mu: Operand, phi: Operand) {
  const logTotal = log(add(mu, phi));
  const coefficient = sub(sub(lgamma(add(n, phi)), lgamma(add(n, 1))), lgamma(phi));
  return add(add(coefficient, mul(phi, sub(logOf(phi), logTotal))), mul(n, sub(logOf(mu), logTotal)));
}

/** log NegBinomial2(0 | mu, phi) = phi log(phi/(mu + phi)) = −phi log1p(mu/phi). */
export function negBinomial2LogZero(mu: Operand, phi: Operand) {
  return neg(mul(phi, log1p(div(mu, phi))));
}

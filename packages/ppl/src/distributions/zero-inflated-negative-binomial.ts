import { add, div, eq, ge, lgamma, log, log1p, mul, neg, select, sub, type Operand } from "@ppl/tensor";
import { logAddExp } from "./composed-special.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, isProbability, logOf, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate, poissonVariate } from "./variates.ts";

/**
 * Zero-inflated negative binomial(theta, mu, phi): a structural zero with probability theta,
 * otherwise Stan's neg_binomial_2(mu, phi) (mean mu, variance mu + mu²/phi).
 */
export function zeroInflatedNegativeBinomial(theta: Operand, mu: Operand, phi: Operand): Distribution {
  checkParam("zeroInflatedNegativeBinomial", "theta", theta, isProbability, "in [0, 1]");
  checkParam("zeroInflatedNegativeBinomial", "mu", mu, isPositive, "positive");
  checkParam("zeroInflatedNegativeBinomial", "phi", phi, isPositive, "positive");
  const batchShape = batchShapeOf("zeroInflatedNegativeBinomial", { theta, mu, phi });
  return {
    name: "zero_inflated_neg_binomial_2",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      const keep = log1p(neg(theta));
      const zero = logAddExp(logOf(theta), add(keep, negBinomial2LogZero(mu, phi)));
      return restrict(ge(n, 0), select(eq(n, 0), zero, add(keep, negBinomial2Logpmf(n, mu, phi))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [theta, mu, phi], bindings, (r, [t, m, f]) =>
        r.uniform() < t! ? 0 : poissonVariate(r, gammaVariate(r, f!, f! / m!)),
      ),
    mean: () => full(mul(sub(1, theta), mu), batchShape),
    variance: () => full(mul(mul(sub(1, theta), mu), add(add(1, mul(theta, mu)), div(mu, phi))), batchShape),
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

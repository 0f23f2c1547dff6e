import { add, div, eq, expm1, ge, log1mExp, mul, neg, select, square, sub, type Operand, type Shape } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import { zeroTruncated } from "./hurdle-poisson.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate, poissonVariate } from "./variates.ts";
import { negBinomial2Logpmf, negBinomial2LogZero } from "./zero-inflated-negative-binomial.ts";
import { logitWeight, probabilityWeight, type ZeroWeight } from "./zero-weight.ts";

/**
 * Hurdle negative binomial(theta, mu, phi): zero with probability theta, otherwise a zero-truncated
 * neg_binomial_2(mu, phi); p(n > 0) = (1 − theta) NB2(n | mu, phi)/(1 − NB2(0 | mu, phi)).
 */
export function hurdleNegativeBinomial(theta: Operand, mu: Operand, phi: Operand): Distribution {
  const w = probabilityWeight("hurdleNegativeBinomial", "theta", theta);
  return hurdleNegativeBinomialOf("hurdle_neg_binomial_2", "hurdleNegativeBinomial", w, mu, phi, { theta, mu, phi });
}

/** Hurdle negative binomial with the probability of zero on the logit scale, theta = σ(alpha), exact at any alpha. */
export function hurdleNegativeBinomialLogit(alpha: Operand, mu: Operand, phi: Operand): Distribution {
  const w = logitWeight("hurdleNegativeBinomialLogit", "alpha", alpha);
  return hurdleNegativeBinomialOf("hurdle_neg_binomial_2_logit", "hurdleNegativeBinomialLogit", w, mu, phi, { alpha, mu, phi });
}

function hurdleNegativeBinomialOf(
  name: string, dist: string, w: ZeroWeight, mu: Operand, phi: Operand, params: Record<string, Operand>,
): Distribution {
  checkParam(dist, "mu", mu, isPositive, "positive");
  checkParam(dist, "phi", phi, isPositive, "positive");
  const batchShape: Shape = batchShapeOf(dist, params);
  const scale = () => div(w.keep, neg(expm1(negBinomial2LogZero(mu, phi))));
  return {
    name,
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      const positive = sub(add(w.logKeep, negBinomial2Logpmf(n, mu, phi)), log1mExp(negBinomial2LogZero(mu, phi)));
      return restrict(ge(n, 0), select(eq(n, 0), w.logZero, positive));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [w.param, mu, phi], bindings, (r, [t, m, f]) => {
        if (r.uniform() < w.probability(t!)) return 0;
        const q = m! / (m! + f!);
        const p0 = Math.exp(-f! * Math.log1p(m! / f!));
        // p(k + 1)/p(k) = (k + phi)/(k + 1) · mu/(mu + phi).
        return zeroTruncated(r, p0, () => poissonVariate(r, gammaVariate(r, f!, f! / m!)), p0 * f! * q, (k) => ((k + f!) / (k + 1)) * q);
      }),
    mean: () => full(mul(scale(), mu), batchShape),
    variance: () => {
      const m = mul(scale(), mu);
      return full(sub(mul(scale(), add(add(mu, div(square(mu), phi)), square(mu))), square(m)), batchShape);
    },
  };
}

import { add, div, ge, gt, lgamma, mul, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, lbeta, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate, gammaVariate, poissonVariate } from "./variates.ts";

/**
 * Stan's beta_neg_binomial(r, alpha, beta): the failures before the r-th success when the success
 * probability is Beta(alpha, beta); log p(n) = log B(n + r, alpha + beta) − log B(r, alpha) + log Γ(n + beta) − log n! − log Γ(beta).
 */
export function betaNegativeBinomial(r: Operand, alpha: Operand, beta: Operand): Distribution {
  checkParam("betaNegativeBinomial", "r", r, isPositive, "positive");
  checkParam("betaNegativeBinomial", "alpha", alpha, isPositive, "positive");
  checkParam("betaNegativeBinomial", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("betaNegativeBinomial", { r, alpha, beta });
  return {
    name: "beta_neg_binomial",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) =>
      restrict(ge(n, 0), sub(sub(add(sub(lbeta(add(n, r), add(alpha, beta)), lbeta(r, alpha)), lgamma(add(n, beta))), lgamma(add(n, 1))), lgamma(beta))),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [r, alpha, beta], bindings, (g, [rr, a, b]) => {
        // p ~ Beta(alpha, beta); the failures are NegBinomial(r, p), a Poisson with Gamma(r, p/(1 − p)) rate.
        const p = betaVariate(g, a!, b!);
        return poissonVariate(g, gammaVariate(g, rr!, p / (1 - p)));
      }),
    // Infinite for alpha ≤ 1 (the mean) and alpha ≤ 2 (the variance).
    mean: () => full(select(gt(alpha, 1), div(mul(r, beta), sub(alpha, 1)), Infinity), batchShape),
    variance: () =>
      full(
        select(
          gt(alpha, 2),
          div(mul(mul(mul(r, beta), add(r, sub(alpha, 1))), add(beta, sub(alpha, 1))), mul(sub(alpha, 2), square(sub(alpha, 1)))),
          Infinity,
        ),
        batchShape,
      ),
  };
}

import { add, eq, ge, lgamma, mul, select, sub, type Operand, type Shape } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, NONNEGATIVE_INT, restrict, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { poissonVariate } from "./variates.ts";
import { logitWeight, probabilityWeight, type ZeroWeight } from "./zero-weight.ts";

/**
 * Zero-inflated Poisson(theta, lambda), as in Stan's user's guide: a structural zero with probability
 * theta, otherwise Poisson(lambda); p(0) = theta + (1 − theta) e^{−lambda}, p(n > 0) = (1 − theta) Poisson(n | lambda).
 */
export function zeroInflatedPoisson(theta: Operand, lambda: Operand): Distribution {
  const w = probabilityWeight("zeroInflatedPoisson", "theta", theta);
  return zeroInflatedPoissonOf("zero_inflated_poisson", "zeroInflatedPoisson", w, lambda, { theta, lambda });
}

/**
 * Zero-inflated Poisson with the structural zero's probability on the logit scale, theta = σ(alpha):
 * exact at any alpha (log σ(±alpha)), where zeroInflatedPoisson(sigmoid(alpha), lambda) loses it beyond alpha ≈ 30.
 */
export function zeroInflatedPoissonLogit(alpha: Operand, lambda: Operand): Distribution {
  const w = logitWeight("zeroInflatedPoissonLogit", "alpha", alpha);
  return zeroInflatedPoissonOf("zero_inflated_poisson_logit", "zeroInflatedPoissonLogit", w, lambda, { alpha, lambda });
}

function zeroInflatedPoissonOf(name: string, dist: string, w: ZeroWeight, lambda: Operand, params: Record<string, Operand>): Distribution {
  checkParam(dist, "lambda", lambda, (v) => v >= 0 && Number.isFinite(v), "non-negative and finite");
  const batchShape: Shape = batchShapeOf(dist, params);
  return {
    name,
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      // log(θ + (1 − θ)e^{−λ}) as log θ ⊕ (log(1 − θ) − λ).
      const zero = w.logSum(w.logZero, sub(w.logKeep, lambda));
      return restrict(ge(n, 0), select(eq(n, 0), zero, add(w.logKeep, poissonLogpmf(n, lambda))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [w.param, lambda], bindings, (r, [t, l]) => (r.uniform() < w.probability(t!) ? 0 : poissonVariate(r, l!))),
    mean: () => full(mul(w.keep, lambda), batchShape),
    variance: () => full(mul(mul(w.keep, lambda), add(1, mul(w.zero, lambda))), batchShape),
  };
}

/** log Poisson(n | lambda) = n log lambda − lambda − log n!, as a graph (n ≥ 0). */
export function poissonLogpmf(n: Operand, lambda: Operand) {
  return sub(sub(xlogy(n, lambda), lambda), lgamma(add(n, 1)));
}

import { add, eq, ge, lgamma, log1p, mul, neg, select, sub, type Operand } from "@ppl/tensor";
import { logAddExp } from "./composed-special.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isProbability, logOf, NONNEGATIVE_INT, restrict, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { poissonVariate } from "./variates.ts";

/**
 * Zero-inflated Poisson(theta, lambda), as in Stan's user's guide: a structural zero with probability
 * theta, otherwise Poisson(lambda); p(0) = theta + (1 − theta) e^{−lambda}, p(n > 0) = (1 − theta) Poisson(n | lambda).
 */
export function zeroInflatedPoisson(theta: Operand, lambda: Operand): Distribution {
  checkParam("zeroInflatedPoisson", "theta", theta, isProbability, "in [0, 1]");
  checkParam("zeroInflatedPoisson", "lambda", lambda, (v) => v >= 0 && Number.isFinite(v), "non-negative and finite");
  const batchShape = batchShapeOf("zeroInflatedPoisson", { theta, lambda });
  return {
    name: "zero_inflated_poisson",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      const keep = log1p(neg(theta));
      const zero = logAddExp(logOf(theta), sub(keep, lambda));
      return restrict(ge(n, 0), select(eq(n, 0), zero, add(keep, poissonLogpmf(n, lambda))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [theta, lambda], bindings, (r, [t, l]) => (r.uniform() < t! ? 0 : poissonVariate(r, l!))),
    mean: () => full(mul(sub(1, theta), lambda), batchShape),
    variance: () => full(mul(mul(sub(1, theta), lambda), add(1, mul(theta, lambda))), batchShape),
  };
}

/** log Poisson(n | lambda) = n log lambda − lambda − log n!, as a graph (n ≥ 0). */
export function poissonLogpmf(n: Operand, lambda: Operand) {
  return sub(sub(xlogy(n, lambda), lambda), lgamma(add(n, 1)));
}

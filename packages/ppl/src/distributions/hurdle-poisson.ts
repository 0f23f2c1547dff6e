import { add, div, eq, expm1, ge, log1mExp, log1p, mul, neg, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, isProbability, logOf, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import type { Rng } from "../random/rng.ts";
import { sampleScalar } from "./sampling.ts";
import { poissonVariate } from "./variates.ts";
import { poissonLogpmf } from "./zero-inflated-poisson.ts";

/**
 * Hurdle Poisson(theta, lambda), as in Stan's user's guide: zero with probability theta, otherwise a
 * zero-truncated Poisson(lambda); p(n > 0) = (1 − theta) Poisson(n | lambda)/(1 − e^{−lambda}).
 */
export function hurdlePoisson(theta: Operand, lambda: Operand): Distribution {
  checkParam("hurdlePoisson", "theta", theta, isProbability, "in [0, 1]");
  checkParam("hurdlePoisson", "lambda", lambda, isPositive, "positive");
  const batchShape = batchShapeOf("hurdlePoisson", { theta, lambda });
  // (1 − theta)/(1 − e^{−lambda}): the positive counts' weight relative to the plain Poisson.
  const scale = () => div(sub(1, theta), neg(expm1(neg(lambda))));
  return {
    name: "hurdle_poisson",
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      const positive = sub(add(log1p(neg(theta)), poissonLogpmf(n, lambda)), log1mExp(neg(lambda)));
      return restrict(ge(n, 0), select(eq(n, 0), logOf(theta), positive));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [theta, lambda], bindings, (r, [t, l]) =>
        r.uniform() < t! ? 0 : zeroTruncated(r, Math.exp(-l!), () => poissonVariate(r, l!), l! * Math.exp(-l!), (k) => l! / (k + 1)),
      ),
    mean: () => full(mul(scale(), lambda), batchShape),
    variance: () => {
      const m = mul(scale(), lambda);
      return full(sub(mul(scale(), add(lambda, square(lambda))), square(m)), batchShape);
    },
  };
}

/**
 * A draw of a count distribution conditioned on being positive. Where zero is unlikely (p0 < 0.9)
 * the unconditioned draw is repeated until positive; otherwise the positive counts are inverted one
 * at a time from p(1) and the ratio p(k + 1)/p(k), so a near-certain zero costs no long rejection loop.
 */
export function zeroTruncated(rng: Rng, p0: number, draw: () => number, p1: number, ratio: (k: number) => number): number {
  if (p0 < 0.9) {
    for (;;) {
      const k = draw();
      if (k > 0) return k;
    }
  }
  let u = rng.uniform() * (1 - p0);
  let k = 1, p = p1;
  // The walk stops at the count where the cumulative mass passes u; p reaching 0 ends it at the last count with mass.
  while (u > p && p > 0) {
    u -= p;
    p *= ratio(k);
    k++;
  }
  return k;
}

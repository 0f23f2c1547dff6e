import { add, div, eq, expm1, ge, log1mExp, mul, neg, select, square, sub, type Operand, type Shape } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, NONNEGATIVE_INT, restrict } from "./helpers.ts";
import type { Rng } from "../random/rng.ts";
import { sampleScalar } from "./sampling.ts";
import { poissonVariate } from "./variates.ts";
import { poissonLogpmf } from "./zero-inflated-poisson.ts";
import { logitWeight, probabilityWeight, type ZeroWeight } from "./zero-weight.ts";

/**
 * Hurdle Poisson(theta, lambda), as in Stan's user's guide: zero with probability theta, otherwise a
 * zero-truncated Poisson(lambda); p(n > 0) = (1 − theta) Poisson(n | lambda)/(1 − e^{−lambda}).
 */
export function hurdlePoisson(theta: Operand, lambda: Operand): Distribution {
  const w = probabilityWeight("hurdlePoisson", "theta", theta);
  return hurdlePoissonOf("hurdle_poisson", "hurdlePoisson", w, lambda, { theta, lambda });
}

/** Hurdle Poisson with the probability of zero on the logit scale, theta = σ(alpha), exact at any alpha. */
export function hurdlePoissonLogit(alpha: Operand, lambda: Operand): Distribution {
  const w = logitWeight("hurdlePoissonLogit", "alpha", alpha);
  return hurdlePoissonOf("hurdle_poisson_logit", "hurdlePoissonLogit", w, lambda, { alpha, lambda });
}

function hurdlePoissonOf(name: string, dist: string, w: ZeroWeight, lambda: Operand, params: Record<string, Operand>): Distribution {
  checkParam(dist, "lambda", lambda, isPositive, "positive");
  const batchShape: Shape = batchShapeOf(dist, params);
  // (1 − theta)/(1 − e^{−lambda}): the positive counts' weight relative to the plain Poisson.
  const scale = () => div(w.keep, neg(expm1(neg(lambda))));
  return {
    name,
    support: NONNEGATIVE_INT,
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (n) => {
      const positive = sub(add(w.logKeep, poissonLogpmf(n, lambda)), log1mExp(neg(lambda)));
      return restrict(ge(n, 0), select(eq(n, 0), w.logZero, positive));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [w.param, lambda], bindings, (r, [t, l]) =>
        r.uniform() < w.probability(t!) ? 0 : zeroTruncated(r, Math.exp(-l!), () => poissonVariate(r, l!), l! * Math.exp(-l!), (k) => l! / (k + 1)),
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

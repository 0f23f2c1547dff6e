import { add, and, betainc, div, ge, le, log, mul, sub, type Operand } from "@ppl/tensor";
import { betaLogpdf } from "./beta.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, restrict, UNIT } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate } from "./variates.ts";
import { within } from "./cdf-helpers.ts";

/** Stan's beta_proportion(mu, kappa): Beta(mu kappa, (1 − mu) kappa), with mean mu ∈ (0, 1) and precision kappa > 0. */
export function betaProportion(mu: Operand, kappa: Operand): Distribution {
  checkParam("betaProportion", "mu", mu, (v) => v > 0 && v < 1, "in (0, 1)");
  checkParam("betaProportion", "kappa", kappa, isPositive, "positive");
  const batchShape = batchShapeOf("betaProportion", { mu, kappa });
  const a = mul(mu, kappa);
  const b = mul(sub(1, mu), kappa);
  return {
    name: "beta_proportion",
    support: UNIT,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(and(ge(x, 0), le(x, 1)), betaLogpdf(x, a, b)),
    // Beta(a, b)'s: I_x(a, b) and I_{1−x}(b, a), differentiable in x, mu and kappa.
    lcdf: (x) => within(x, 0, 1, 0.5, (xs) => log(betainc(a, b, xs)), -Infinity, 0),
    lccdf: (x) => within(x, 0, 1, 0.5, (xs) => log(betainc(b, a, sub(1, xs))), 0, -Infinity),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, kappa], bindings, (r, [m, k]) => betaVariate(r, m! * k!, (1 - m!) * k!)),
    mean: () => full(mu, batchShape),
    variance: () => full(div(mul(mu, sub(1, mu)), add(kappa, 1)), batchShape),
  };
}

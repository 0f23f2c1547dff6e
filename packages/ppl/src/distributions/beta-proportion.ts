import { add, and, div, ge, le, mul, sub, type Operand } from "@ppl/tensor";
import { betaLogpdf } from "./beta.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, restrict, UNIT } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate } from "./variates.ts";

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
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, kappa], bindings, (r, [m, k]) => betaVariate(r, m! * k!, (1 - m!) * k!)),
    mean: () => full(mu, batchShape),
    variance: () => full(div(mul(mu, sub(1, mu)), add(kappa, 1)), batchShape),
  };
}

import { add, div, logPhi, mul, reciprocal, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/**
 * Stan's exp_mod_normal(mu, sigma, lambda): a Normal(mu, sigma) plus an independent Exponential(lambda);
 * log p(y) = log lambda + lambda (mu + lambda sigma²/2 − y) + log Φ((y − mu)/sigma − lambda sigma).
 */
export function expModNormal(mu: Operand, sigma: Operand, lambda: Operand): Distribution {
  checkParam("expModNormal", "mu", mu, isFiniteNumber, "finite");
  checkParam("expModNormal", "sigma", sigma, isPositive, "positive");
  checkParam("expModNormal", "lambda", lambda, isPositive, "positive");
  const batchShape = batchShapeOf("expModNormal", { mu, sigma, lambda });
  return {
    name: "exp_mod_normal",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    // Stan's λ/2 · erfc(·) form, with erfc(z/√2)/2 = Φ(−z) taken through log Φ so that the far left tail keeps its digits.
    logpdf: (y) => {
      const ls = mul(lambda, sigma);
      const expo = mul(lambda, sub(add(mu, mul(0.5, mul(ls, sigma))), y));
      return add(add(logOf(lambda), expo), logPhi(sub(div(sub(y, mu), sigma), ls)));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, sigma, lambda], bindings, (r, [m, s, l]) => m! + s! * r.normal() - Math.log(r.uniform()) / l!),
    mean: () => full(add(mu, reciprocal(lambda)), batchShape),
    variance: () => full(add(square(sigma), reciprocal(square(lambda))), batchShape),
  };
}

import { add, div, log1mExp, logPhi, minimum, mul, neg, reciprocal, square, sub, type Node, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { logAddExp } from "./composed-special.ts";

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
    // F(y) = Φ(z) − e^{b}, b = −v z + v²/2 + log Φ(z − v), with z = (y − mu)/sigma and v = lambda sigma:
    // a difference taken in logs for lcdf, and 1 − F = Φ(−z) + e^{b}, a sum, for lccdf.
    lcdf: (y) => {
      const { logLower, b } = expModNormalParts(y, mu, sigma, lambda);
      // b < log Φ(z) exactly; rounding could tie them far in the left tail, where the difference underflows anyway.
      return add(logLower, log1mExp(minimum(sub(b, logLower), -1e-300)));
    },
    lccdf: (y) => {
      const { logUpper, b } = expModNormalParts(y, mu, sigma, lambda);
      return logAddExp(logUpper, b);
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, sigma, lambda], bindings, (r, [m, s, l]) => m! + s! * r.normal() - Math.log(r.uniform()) / l!),
    mean: () => full(add(mu, reciprocal(lambda)), batchShape),
    variance: () => full(add(square(sigma), reciprocal(square(lambda))), batchShape),
  };
}

// log Φ(z), log Φ(−z) and b = log(e^{−v z + v²/2} Φ(z − v)), the pieces of exp_mod_normal's CDF.
function expModNormalParts(y: Operand, mu: Operand, sigma: Operand, lambda: Operand): { logLower: Node; logUpper: Node; b: Node } {
  const z = div(sub(y, mu), sigma);
  const v = mul(lambda, sigma);
  const b = add(sub(mul(0.5, square(v)), mul(v, z)), logPhi(sub(z, v)));
  return { logLower: logPhi(z), logUpper: logPhi(neg(z)), b };
}

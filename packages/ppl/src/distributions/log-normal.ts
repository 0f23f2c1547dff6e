import { add, div, exp, expm1, gt, log, logPhi, mul, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, POSITIVE, restrict } from "./helpers.ts";
import { normalLogpdf } from "./normal.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/** LogNormal(mu, sigma): log x ~ Normal(mu, sigma). */
export function logNormal(mu: Operand, sigma: Operand): Distribution {
  checkParam("logNormal", "mu", mu, isFiniteNumber, "finite");
  checkParam("logNormal", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("logNormal", { mu, sigma });
  return {
    name: "lognormal",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => {
      const lx = log(x);
      return restrict(gt(x, 0), sub(normalLogpdf(lx, mu, sigma), lx));
    },
    lcdf: (x) => above(x, 0, 1, (xs) => logPhi(div(sub(log(xs), mu), sigma)), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => logPhi(div(sub(mu, log(xs)), sigma)), 0),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [mu, sigma], bindings, (r, [m, s]) => Math.exp(m! + s! * r.normal())),
    mean: () => full(exp(add(mu, mul(0.5, square(sigma)))), batchShape),
    variance: () => full(mul(expm1(square(sigma)), exp(add(mul(2, mu), square(sigma)))), batchShape),
  };
}

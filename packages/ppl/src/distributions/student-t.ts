import { add, div, gt, lgamma, log1p, mul, select, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, LOG_PI, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { gammaVariate } from "./variates.ts";
import type { Rng } from "../random/rng.ts";
import { studentTLogTails } from "./cdf-helpers.ts";

/** Student's t with nu degrees of freedom, location mu and scale sigma. */
export function studentT(nu: Operand, mu: Operand, sigma: Operand): Distribution {
  checkParam("studentT", "nu", nu, isPositive, "positive");
  checkParam("studentT", "mu", mu, isFiniteNumber, "finite");
  checkParam("studentT", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("studentT", { nu, mu, sigma });
  return {
    name: "student_t",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => studentTLogpdf(x, nu, mu, sigma),
    // Through the incomplete beta function, differentiable in nu, mu and sigma.
    lcdf: (x) => studentTLogTails(div(sub(x, mu), sigma), nu).lower,
    lccdf: (x) => studentTLogTails(div(sub(x, mu), sigma), nu).upper,
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [nu, mu, sigma], bindings, (r, [n, m, s]) => m! + s! * standardT(r, n!)),
    // Undefined moments (nu ≤ 1 for the mean, nu ≤ 2 for the variance) come out as NaN and +∞.
    mean: () => full(select(gt(nu, 1), mu, NaN), batchShape),
    variance: () => full(select(gt(nu, 2), div(mul(square(sigma), nu), sub(nu, 2)), Infinity), batchShape),
  };
}

/** log t(x | nu, mu, sigma) as a graph. */
export function studentTLogpdf(x: Operand, nu: Operand, mu: Operand, sigma: Operand) {
  const z = div(sub(x, mu), sigma);
  const half = mul(0.5, add(nu, 1));
  const norm = sub(sub(lgamma(half), lgamma(mul(0.5, nu))), add(mul(0.5, add(logOf(nu), LOG_PI)), logOf(sigma)));
  return sub(norm, mul(half, log1p(div(square(z), nu))));
}

/** A standard t variate: normal over the root of a scaled chi-square. */
export function standardT(rng: Rng, nu: number): number {
  return rng.normal() / Math.sqrt((2 * gammaVariate(rng, nu / 2)) / nu);
}


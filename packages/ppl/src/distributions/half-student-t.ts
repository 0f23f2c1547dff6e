import { add, div, exp, ge, lgamma, log, log1p, mul, sqrt, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { halfLocation } from "./half-location.ts";
import { batchShapeOf, checkParam, full, isPositive, LOG_TWO, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { standardT, studentTLogpdf } from "./student-t.ts";
import { above, studentTTail } from "./cdf-helpers.ts";

/** Half Student-t: t(nu, 0, sigma) restricted to x ≥ 0. Accepts (nu, sigma) or Stan's (nu, 0, sigma). */
export function halfStudentT(nu: Operand, ...rest: [sigma: Operand] | [mu: 0, sigma: Operand]): Distribution {
  const sigma = halfLocation("halfStudentT", rest);
  checkParam("halfStudentT", "nu", nu, isPositive, "positive");
  checkParam("halfStudentT", "sigma", sigma, isPositive, "positive");
  const batchShape = batchShapeOf("halfStudentT", { nu, sigma });
  // E|T| for standard t: 2 sqrt(nu/π) Γ((nu+1)/2) / (Γ(nu/2) (nu−1)).
  const m = () =>
    mul(sigma, div(mul(mul(2, sqrt(div(nu, Math.PI))), exp(sub(lgamma(mul(0.5, add(nu, 1))), lgamma(mul(0.5, nu))))), sub(nu, 1)));
  return {
    name: "half_student_t",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(ge(x, 0), add(studentTLogpdf(x, nu, 0, sigma), LOG_TWO)),
    // 1 − F(x) = 2·P(T > x/σ).
    lcdf: (x) => above(x, 0, 1, (xs) => log1p(mul(-2, studentTTail(div(xs, sigma), nu))), -Infinity),
    lccdf: (x) => above(x, 0, 1, (xs) => add(LOG_TWO, log(studentTTail(div(xs, sigma), nu))), 0),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [nu, sigma], bindings, (r, [n, s]) => Math.abs(s! * standardT(r, n!))),
    mean: () => full(m(), batchShape),
    variance: () => full(sub(div(mul(square(sigma), nu), sub(nu, 2)), square(m())), batchShape),
  };
}

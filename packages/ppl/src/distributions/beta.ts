import { add, and, betainc, div, ge, le, log, mul, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, lbeta, restrict, UNIT, xlogy } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate } from "./variates.ts";
import { within } from "./cdf-helpers.ts";

/** Beta(a, b) on (0, 1). */
export function beta(a: Operand, b: Operand): Distribution {
  checkParam("beta", "a", a, isPositive, "positive");
  checkParam("beta", "b", b, isPositive, "positive");
  const batchShape = batchShapeOf("beta", { a, b });
  return {
    name: "beta",
    support: UNIT,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(and(ge(x, 0), le(x, 1)), betaLogpdf(x, a, b)),
    // I_x(a, b) and I_{1−x}(b, a), differentiable in x, a and b.
    lcdf: (x) => within(x, 0, 1, 0.5, (xs) => log(betainc(a, b, xs)), -Infinity, 0),
    lccdf: (x) => within(x, 0, 1, 0.5, (xs) => log(betainc(b, a, sub(1, xs))), 0, -Infinity),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [a, b], bindings, (r, [p, q]) => betaVariate(r, p!, q!)),
    mean: () => full(div(a, add(a, b)), batchShape),
    variance: () => full(div(mul(a, b), mul(square(add(a, b)), add(add(a, b), 1))), batchShape),
  };
}

/** log Beta(x | a, b) for x in [0, 1], as a graph. */
export function betaLogpdf(x: Operand, a: Operand, b: Operand) {
  return sub(add(xlogy(sub(a, 1), x), xlogy(sub(b, 1), sub(1, x))), lbeta(a, b));
}

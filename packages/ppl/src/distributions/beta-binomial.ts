import { add, and, div, ge, le, mul, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isNonNegativeInt, isPositive, lbeta, lchoose, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { betaVariate, binomialVariate } from "./variates.ts";

/** BetaBinomial(n, a, b): Binomial(n, p) with p ~ Beta(a, b). */
export function betaBinomial(n: Operand, a: Operand, b: Operand): Distribution {
  checkParam("betaBinomial", "n", n, isNonNegativeInt, "a non-negative integer");
  checkParam("betaBinomial", "a", a, isPositive, "positive");
  checkParam("betaBinomial", "b", b, isPositive, "positive");
  const batchShape = batchShapeOf("betaBinomial", { n, a, b });
  const s = () => add(a, b);
  return {
    name: "beta_binomial",
    support: { kind: "int_interval", lower: 0, upper: n },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (k) => restrict(and(ge(k, 0), le(k, n)), sub(add(lchoose(n, k), lbeta(add(k, a), add(sub(n, k), b))), lbeta(a, b))),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [n, a, b], bindings, (r, [m, p, q]) => binomialVariate(r, m!, betaVariate(r, p!, q!))),
    mean: () => full(div(mul(n, a), s()), batchShape),
    variance: () => full(div(mul(mul(mul(n, a), b), add(s(), n)), mul(square(s()), add(s(), 1))), batchShape),
  };
}

import { abs, add, div, mul, neg, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, LOG_TWO, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/** Laplace (Stan's double_exponential) with location mu and scale b. */
export function laplace(mu: Operand, b: Operand): Distribution {
  checkParam("laplace", "mu", mu, isFiniteNumber, "finite");
  checkParam("laplace", "b", b, isPositive, "positive");
  const batchShape = batchShapeOf("laplace", { mu, b });
  return {
    name: "double_exponential",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => sub(neg(add(logOf(b), LOG_TWO)), div(abs(sub(x, mu)), b)),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, b], bindings, (r, [m, s]) => {
        const u = r.uniform() - 0.5;
        return m! - s! * Math.sign(u) * Math.log1p(-2 * Math.abs(u));
      }),
    mean: () => full(mu, batchShape),
    variance: () => full(mul(2, square(b)), batchShape),
  };
}

import { abs, add, div, exp, log1p, lt, mul, neg, select, square, sub, type Node, type Operand } from "@ppl/tensor";
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
    lcdf: (x) => laplaceLogCdf(div(sub(x, mu), b)),
    lccdf: (x) => laplaceLogCdf(div(sub(mu, x), b)),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, b], bindings, (r, [m, s]) => {
        const u = r.uniform() - 0.5;
        return m! - s! * Math.sign(u) * Math.log1p(-2 * Math.abs(u));
      }),
    mean: () => full(mu, batchShape),
    variance: () => full(mul(2, square(b)), batchShape),
  };
}

// log F(z) of the standard Laplace: z − log 2 below 0, log(1 − e^{−z}/2) above, each branch reading a clamped z.
function laplaceLogCdf(z: Node): Node {
  const negative = lt(z, 0);
  return select(negative, sub(select(negative, z, 0), LOG_TWO), log1p(mul(-0.5, exp(neg(select(negative, 0, z))))));
}

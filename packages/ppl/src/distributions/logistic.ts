import { div, logSigmoid, mul, neg, softplus, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/** Logistic(mu, s). */
export function logistic(mu: Operand, s: Operand): Distribution {
  checkParam("logistic", "mu", mu, isFiniteNumber, "finite");
  checkParam("logistic", "s", s, isPositive, "positive");
  const batchShape = batchShapeOf("logistic", { mu, s });
  return {
    name: "logistic",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    // log f = −z − log s − 2 log(1 + e^{−z}), written with softplus so it is stable for large |z|.
    logpdf: (x) => {
      const z = div(sub(x, mu), s);
      return sub(sub(neg(z), logOf(s)), mul(2, softplus(neg(z))));
    },
    lcdf: (x) => logSigmoid(div(sub(x, mu), s)),
    lccdf: (x) => logSigmoid(div(sub(mu, x), s)),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, s], bindings, (r, [m, sc]) => {
        const u = r.uniform();
        return m! + sc! * Math.log(u / (1 - u));
      }),
    mean: () => full(mu, batchShape),
    variance: () => full(mul(square(s), (Math.PI * Math.PI) / 3), batchShape),
  };
}

import { add, div, exp, log1mExp, mul, neg, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, logOf, REAL } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

const EULER_GAMMA = 0.5772156649015329;

/** Stan's gumbel(mu, beta): log p(y) = −log beta − z − e^{−z}, z = (y − mu)/beta; mean mu + γ beta. */
export function gumbel(mu: Operand, beta: Operand): Distribution {
  checkParam("gumbel", "mu", mu, isFiniteNumber, "finite");
  checkParam("gumbel", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("gumbel", { mu, beta });
  return {
    name: "gumbel",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const z = div(sub(y, mu), beta);
      return sub(sub(neg(logOf(beta)), z), exp(neg(z)));
    },
    // F(y) = exp(−e^{−z}): its log is −e^{−z}, and log(1 − F) = log1mExp(−e^{−z}) keeps the upper tail's digits.
    lcdf: (y) => neg(exp(neg(div(sub(y, mu), beta)))),
    lccdf: (y) => log1mExp(neg(exp(neg(div(sub(y, mu), beta))))),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, beta], bindings, (r, [m, b]) => m! - b! * Math.log(-Math.log(r.uniform()))),
    mean: () => full(add(mu, mul(EULER_GAMMA, beta)), batchShape),
    variance: () => full(mul((Math.PI * Math.PI) / 6, square(beta)), batchShape),
  };
}

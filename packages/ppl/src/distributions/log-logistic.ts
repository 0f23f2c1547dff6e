import { add, div, ge, gt, log, log1p, mul, neg, pow, select, sin, softplus, square, sub, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isPositive, logOf, POSITIVE, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";
import { above } from "./cdf-helpers.ts";

/**
 * Stan's loglogistic(alpha, beta): y > 0 with scale alpha (the median) and shape beta;
 * log p(y) = log(beta/alpha) + (beta − 1) log(y/alpha) − 2 log(1 + (y/alpha)^beta).
 */
export function logLogistic(alpha: Operand, beta: Operand): Distribution {
  checkParam("logLogistic", "alpha", alpha, isPositive, "positive");
  checkParam("logLogistic", "beta", beta, isPositive, "positive");
  const batchShape = batchShapeOf("logLogistic", { alpha, beta });
  // E y^j = alpha^j (jπ/beta)/sin(jπ/beta) for beta > j; the argument is kept below π where the moment is infinite.
  const moment = (j: number) => {
    const b = mul(j * Math.PI, reciprocalOr(beta, j));
    return mul(pow(alpha, j), div(b, sin(b)));
  };
  return {
    name: "loglogistic",
    support: POSITIVE,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const lz = sub(log(y), logOf(alpha));
      return restrict(ge(y, 0), sub(add(sub(logOf(beta), logOf(alpha)), mul(sub(beta, 1), lz)), mul(2, log1p(pow(div(y, alpha), beta)))));
    },
    // F(y) = 1/(1 + (y/alpha)^{−beta}) on y > 0: log F = −softplus(−beta log(y/alpha)), log(1 − F) = −softplus(beta log(y/alpha)).
    lcdf: (y) => above(y, 0, 1, (ys) => neg(softplus(neg(mul(beta, sub(log(ys), logOf(alpha)))))), -Infinity),
    lccdf: (y) => above(y, 0, 1, (ys) => neg(softplus(mul(beta, sub(log(ys), logOf(alpha))))), 0),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [alpha, beta], bindings, (r, [a, b]) => {
        const u = r.uniform();
        return a! * Math.pow(u / (1 - u), 1 / b!);
      }),
    mean: () => full(select(gt(beta, 1), moment(1), Infinity), batchShape),
    variance: () => full(select(gt(beta, 2), sub(moment(2), square(moment(1))), Infinity), batchShape),
  };
}

// 1/beta where beta > j, and 1/(2j) (a harmless stand-in) elsewhere.
function reciprocalOr(beta: Operand, j: number) {
  return div(1, select(gt(beta, j), beta, 2 * j));
}

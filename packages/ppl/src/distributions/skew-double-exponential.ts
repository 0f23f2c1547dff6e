import { add, and, div, gt, log1mExp, log1p, lt, mul, neg, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, isPositive, LOG_TWO, logOf, REAL, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/**
 * Stan's skew_double_exponential(mu, sigma, tau): an asymmetric Laplace with skewness tau ∈ (0, 1),
 * log p(y) = log(2 tau (1 − tau)/sigma) − (2/sigma)[(1 − tau)(mu − y) for y < mu, tau (y − mu) above].
 * P(y < mu) = tau, so mu is the tau-quantile (quantile regression's likelihood).
 */
export function skewDoubleExponential(mu: Operand, sigma: Operand, tau: Operand): Distribution {
  checkParam("skewDoubleExponential", "mu", mu, isFiniteNumber, "finite");
  checkParam("skewDoubleExponential", "sigma", sigma, isPositive, "positive");
  checkParam("skewDoubleExponential", "tau", tau, (v) => v > 0 && v < 1, "in (0, 1)");
  const batchShape = batchShapeOf("skewDoubleExponential", { mu, sigma, tau });
  // Offsets from mu are exponential with rate 2 tau/sigma above and 2(1 − tau)/sigma below.
  const above = () => div(sigma, mul(2, tau));
  const below = () => div(sigma, mul(2, sub(1, tau)));
  return {
    name: "skew_double_exponential",
    support: REAL,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const d = sub(y, mu);
      const weight = select(lt(d, 0), sub(tau, 1), tau);
      const norm = sub(add(add(LOG_TWO, logOf(tau)), log1p(neg(tau))), logOf(sigma));
      return restrict(and(gt(tau, 0), lt(tau, 1)), sub(norm, div(mul(2, mul(weight, d)), sigma)));
    },
    // Below mu F = tau·e^{2(1 − tau)(y − mu)/sigma}, above it 1 − F = (1 − tau)·e^{−2 tau (y − mu)/sigma}:
    // each side's small tail in closed form, the other through log1mExp.
    lcdf: (y) => {
      const { lower, upper, left } = sdeTails(y, mu, sigma, tau);
      return select(left, lower, log1mExp(upper));
    },
    lccdf: (y) => {
      const { lower, upper, left } = sdeTails(y, mu, sigma, tau);
      return select(left, log1mExp(lower), upper);
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, sigma, tau], bindings, (r, [m, s, t]) => {
        const e = -Math.log(r.uniform());
        return r.uniform() < t! ? m! - (e * s!) / (2 * (1 - t!)) : m! + (e * s!) / (2 * t!);
      }),
    mean: () => full(add(mu, sub(mul(sub(1, tau), above()), mul(tau, below()))), batchShape),
    variance: () => {
      // E(y − mu)² = 2[(1 − tau) a² + tau b²] with a, b the two exponentials' means.
      const second = mul(2, add(mul(sub(1, tau), square(above())), mul(tau, square(below()))));
      return full(sub(second, square(sub(mul(sub(1, tau), above()), mul(tau, below())))), batchShape);
    },
  };
}

// log F on the left of mu and log(1 − F) on the right, each at y clamped to its side (so that the
// side a select drops stays finite), and whether y is on the left.
function sdeTails(y: Operand, mu: Operand, sigma: Operand, tau: Operand): { lower: Node; upper: Node; left: Node } {
  const d = sub(y, mu);
  const left = lt(d, 0);
  const lower = add(logOf(tau), div(mul(mul(2, sub(1, tau)), select(left, d, 0)), sigma));
  const upper = sub(log1p(neg(tau)), div(mul(mul(2, tau), select(left, 0, d)), sigma));
  return { lower, upper, left };
}

import {
  add, and, div, erfc, exp, ge, gt, le, log, mul, neg, select, square, sub, type Node, type Operand,
} from "@ppl/tensor";
import normalCdf from "@stdlib/stats-base-dists-normal-cdf";
import normalQuantile from "@stdlib/stats-base-dists-normal-quantile";
import type { Distribution, Support } from "./distribution.ts";
import { batchShapeOf, checkOperand, checkOptions, checkParam, full, HALF_LOG_TWO_PI, isFiniteNumber, isPositive, restrict } from "./helpers.ts";
import { normal, normalLogpdf } from "./normal.ts";
import type { TruncationBounds } from "./truncation-bounds.ts";
import { truncated } from "./truncated.ts";
import { sampleScalar } from "./sampling.ts";
import { ModelError } from "../model/errors.ts";
import { boundOrderFix } from "../transforms/transform.ts";

// The bounds' type is a module of its own: truncated.ts reads it too, and this file reads truncated.ts.
export type { TruncationBounds } from "./truncation-bounds.ts";

const SQRT1_2 = Math.SQRT1_2;

/** Normal(mu, sigma) truncated to [lower, upper] and renormalized; its support gives a parameter the matching bound transform. */
export function truncatedNormal(mu: Operand, sigma: Operand, bounds: TruncationBounds = {}): Distribution {
  checkOptions("truncatedNormal", bounds, ["lower", "upper"]);
  if (bounds.lower !== undefined) checkOperand("truncatedNormal", "lower", bounds.lower);
  if (bounds.upper !== undefined) checkOperand("truncatedNormal", "upper", bounds.upper);
  const { lower, upper } = bounds;
  checkParam("truncatedNormal", "mu", mu, isFiniteNumber, "finite");
  checkParam("truncatedNormal", "sigma", sigma, isPositive, "positive");
  if (typeof lower === "number" && typeof upper === "number" && !(lower < upper)) {
    throw new ModelError(`truncatedNormal: lower (${lower}) must be below upper (${upper}); ${boundOrderFix(lower, upper)}`);
  }
  const params: Record<string, Operand> = { mu, sigma };
  if (lower !== undefined) params.lower = lower;
  if (upper !== undefined) params.upper = upper;
  const batchShape = batchShapeOf("truncatedNormal", params);
  const alpha = lower === undefined ? undefined : div(sub(lower, mu), sigma);
  const beta = upper === undefined ? undefined : div(sub(upper, mu), sigma);
  const support: Support =
    lower !== undefined && upper !== undefined ? { kind: "interval", lower, upper }
    : lower !== undefined ? { kind: "lower", lower }
    : upper !== undefined ? { kind: "upper", upper }
    : { kind: "real" };
  const pdf = (t: Node) => exp(sub(mul(-0.5, square(t)), HALF_LOG_TWO_PI));
  // Z = Φ(β) − Φ(α), from the tail where it does not cancel.
  const z = (): Node | undefined => {
    if (alpha && beta) {
      return select(gt(alpha, 0), mul(0.5, sub(erfc(mul(alpha, SQRT1_2)), erfc(mul(beta, SQRT1_2)))),
        mul(0.5, sub(erfc(mul(neg(beta), SQRT1_2)), erfc(mul(neg(alpha), SQRT1_2)))));
    }
    if (alpha) return mul(0.5, erfc(mul(alpha, SQRT1_2)));
    if (beta) return mul(0.5, erfc(mul(neg(beta), SQRT1_2)));
    return undefined;
  };
  const cdfs = () => (lower === undefined && upper === undefined ? normal(mu, sigma) : truncated(normal(mu, sigma), bounds));
  const phiDiff = () => sub(alpha ? pdf(alpha) : 0, beta ? pdf(beta) : 0);
  return {
    name: "truncated_normal",
    support,
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => {
      const lp = normalLogpdf(x, mu, sigma);
      const zz = z();
      const inside =
        lower !== undefined && upper !== undefined ? and(ge(x, lower), le(x, upper))
        : lower !== undefined ? ge(x, lower)
        : upper !== undefined ? le(x, upper)
        : undefined;
      const norm = zz ? sub(lp, log(zz)) : lp;
      return inside ? restrict(inside, norm) : norm;
    },
    // The renormalised normal CDFs of truncated(normal(mu, sigma), bounds), the same distribution.
    lcdf: (x) => cdfs().lcdf!(x),
    lccdf: (x) => cdfs().lccdf!(x),
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [mu, sigma, lower ?? -Infinity, upper ?? Infinity], bindings, (r, [m, s, a, b]) =>
        m! + s! * truncatedStandardNormal(r.uniform(), (a! - m!) / s!, (b! - m!) / s!)),
    mean: () => {
      const zz = z();
      return full(zz ? add(mu, mul(sigma, div(phiDiff(), zz))) : mu, batchShape);
    },
    variance: () => {
      const zz = z();
      if (!zz) return full(square(sigma), batchShape);
      const tail = sub(alpha ? mul(alpha, pdf(alpha)) : 0, beta ? mul(beta, pdf(beta)) : 0);
      return full(mul(square(sigma), sub(add(1, div(tail, zz)), square(div(phiDiff(), zz)))), batchShape);
    },
  };
}

/** Inverse-CDF draw of a standard normal truncated to [a, b], taken in the upper tail when the interval lies above 0 so the CDF does not round to 1. */
function truncatedStandardNormal(u: number, a: number, b: number): number {
  if (a > 0) {
    const qa = normalCdf(-a, 0, 1), qb = normalCdf(-b, 0, 1);
    return -normalQuantile(qb + u * (qa - qb), 0, 1);
  }
  const pa = normalCdf(a, 0, 1), pb = normalCdf(b, 0, 1);
  return normalQuantile(pa + u * (pb - pa), 0, 1);
}

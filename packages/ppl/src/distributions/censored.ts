import { add, ge, le, mul, or, select, sub, type Node } from "@ppl/tensor";
import { broadcastShapes, lift, sizeOf } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Distribution, Support } from "./distribution.ts";
import { checkOperand, checkOptions, shapeOf } from "./helpers.ts";
import { broadcastValues, evalOperands, sampleToShape } from "./sampling.ts";
import type { TruncationBounds } from "./truncated-normal.ts";

/**
 * The distribution of a censored observation of `dist`: an element at or below `lower` is only
 * known to be ≤ lower and contributes log F(lower) (lcdf); one at or above `upper` is only known
 * to be ≥ upper and contributes log P(X ≥ upper) (lccdf(upper), or lccdf(upper − 1) for counts);
 * the others contribute the density. Bounds broadcast against the observations, so a vector gives
 * each element its own limit (±∞ for none). Draws are draws of `dist` clamped to [lower, upper]:
 * replicated observations censored as the data were. Used by m.observeCensored.
 */
export function censored(dist: Distribution, bounds: TruncationBounds): Distribution {
  checkOptions("observeCensored", bounds, ["lower", "upper"]);
  if (bounds.lower !== undefined) checkOperand("observeCensored", "lower", bounds.lower);
  if (bounds.upper !== undefined) checkOperand("observeCensored", "upper", bounds.upper);
  const { lower, upper } = bounds;
  const lcdf = dist.lcdf?.bind(dist), lccdf = dist.lccdf?.bind(dist);
  if (dist.eventShape.length !== 0 || !lcdf || !lccdf) {
    throw new ModelError(`observeCensored: ${dist.name} has no lcdf and lccdf (or is not univariate); censoring needs a univariate distribution with both`);
  }
  if (lower === undefined && upper === undefined) throw new ModelError("observeCensored: give a lower limit, an upper limit or both");
  const batchShape = broadcastShapes("observeCensored", dist.batchShape, shapeOf(lower ?? 0), shapeOf(upper ?? 0));
  // Each branch reads a point of the support where its own elements are not the ones it serves:
  // a density at a limit on the support's edge, or a CDF at ±∞, would give NaN gradients even
  // where the select discards it.
  const inner = supportPoint(dist.support);
  return {
    name: `censored ${dist.name}`,
    support: dist.support,
    discrete: dist.discrete,
    batchShape,
    eventShape: [],
    logpdf: (y) => {
      const left = lower === undefined ? undefined : le(y, lower);
      const right = upper === undefined ? undefined : ge(y, upper);
      const censoredHere = left && right ? or(left, right) : (left ?? right!);
      let lp = dist.logpdf(select(censoredHere, inner, y));
      if (right) {
        const at = select(right, upper!, inner);
        lp = select(right, lccdf(dist.discrete ? sub(at, 1) : at), lp);
      }
      if (left) lp = select(left, lcdf(select(left, lower!, inner)), lp);
      return lp;
    },
    sample: (rng, shape = [], at) => {
      const full = [...shape, ...batchShape];
      const draws = sampleToShape(dist, full, rng, at)!.data;
      const [lo, hi] = broadcastValues(evalOperands([lower ?? -Infinity, upper ?? Infinity], at), batchShape);
      const nb = sizeOf(batchShape);
      const out = Float64Array.from(draws, (v, i) => Math.min(Math.max(v, lo![i % nb]!), hi![i % nb]!));
      return { dtype: "f64", shape: full, data: out };
    },
  };
}

// A point inside the support, where the density and both CDFs are finite.
function supportPoint(s: Support): Node {
  switch (s.kind) {
    case "positive": return lift(1);
    case "unit": return lift(0.5);
    case "lower": return add(s.lower, 1);
    case "upper": return sub(s.upper, 1);
    case "interval": return mul(0.5, add(s.lower, s.upper));
    case "int_interval": return lift(s.lower);
    case "nonnegative_int": case "counts": return lift(0);
    default: return lift(0);
  }
}

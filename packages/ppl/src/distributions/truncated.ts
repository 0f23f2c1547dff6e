import {
  add, and, ge, gt, le, logDiffExp, lt, mul, select, sub, type Node, type Operand, type Shape, type TensorValue,
} from "@ppl/tensor";
import { broadcastShapes, sizeOf } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";
import type { Rng } from "../random/rng.ts";
import { boundOrderFix } from "../transforms/transform.ts";
import { isDistribution, type Distribution, type Support, type ValuesAt } from "./distribution.ts";
import { checkOperand, checkOptions, restrict, shapeOf } from "./helpers.ts";
import { describeValue } from "../model/arguments.ts";
import type { TruncationBounds } from "./truncation-bounds.ts";
import { broadcastValues, evalOperands, sampleToShape } from "./sampling.ts";


// Rounds of rejection sampling before a draw is given up on: an acceptance rate below 1/ROUNDS
// means the truncation keeps almost none of the distribution's mass.
const ROUNDS = 10000;

/**
 * `dist` restricted to [lower, upper] and renormalised by its CDFs (Stan's T[lower, upper]):
 * log p(x) − log(F(upper) − F(lower)) inside, −∞ outside. For discrete distributions both bounds
 * are included (the mass below is F(lower − 1)). The support narrows accordingly, so a parameter
 * with a truncated prior gets the matching bound transform. Draws are taken by rejection from the
 * distribution's own sampler (the same Philox stream), which needs the kept mass not to be tiny.
 */
export function truncated(dist: Distribution, bounds: TruncationBounds): Distribution {
  if (!isDistribution(dist)) throw new ModelError(`truncated: the first argument must be a distribution such as normal(0, 1), got ${describeValue(dist)}`);
  if (bounds === undefined) throw new ModelError("truncated: give the bounds as the second argument, e.g. truncated(normal(0, 1), { lower: 0 })");
  checkOptions("truncated", bounds, ["lower", "upper"]);
  if (bounds.lower !== undefined) checkOperand("truncated", "lower", bounds.lower);
  if (bounds.upper !== undefined) checkOperand("truncated", "upper", bounds.upper);
  const { lower, upper } = bounds;
  const lcdf = dist.lcdf?.bind(dist), lccdf = dist.lccdf?.bind(dist);
  if (dist.eventShape.length !== 0 || !lcdf || !lccdf) {
    throw new ModelError(`truncated: ${dist.name} has no lcdf and lccdf (or is not univariate); truncation needs a univariate distribution with both`);
  }
  if (lower === undefined && upper === undefined) throw new ModelError("truncated: give a lower bound, an upper bound or both");
  if (typeof lower === "number" && typeof upper === "number" && !(lower < upper)) {
    throw new ModelError(`truncated: lower (${lower}) must be below upper (${upper}); ${boundOrderFix(lower, upper)}`);
  }
  const batchShape = broadcastShapes("truncated", dist.batchShape, shapeOf(lower ?? 0), shapeOf(upper ?? 0));
  // The mass below the kept range is F at the lower bound for continuous distributions, and at the
  // count just below it for discrete ones, whose lower bound is kept
  // (a number stays a number, for the count distributions whose CDF tables are sized by it).
  const below = lower === undefined ? undefined : !dist.discrete ? lower : typeof lower === "number" ? lower - 1 : sub(lower, 1);
  const logMass = (): Node => {
    if (below !== undefined && upper !== undefined) {
      const lo = lcdf(below), hi = lcdf(upper);
      // Both ends in the upper half: the survival functions do not round to 1 there, the CDFs would.
      return select(gt(lo, -Math.LN2), logDiffExp(lccdf(below), lccdf(upper)), logDiffExp(hi, lo));
    }
    return below !== undefined ? lccdf(below) : lcdf(upper!);
  };
  const inside = (x: Operand): Node =>
    lower !== undefined && upper !== undefined ? and(ge(x, lower), le(x, upper)) : lower !== undefined ? ge(x, lower) : le(x, upper!);
  const limits = [lower ?? -Infinity, upper ?? Infinity];
  // Points where both truncated CDFs are strictly between 0 and 1: (lower, upper) for continuous
  // distributions, lower..upper − 1 for counts, whose lower bound keeps its mass. Elsewhere x is
  // replaced by an interior point, because the CDF differences below are NaN (with NaN gradients)
  // there, even in the branch a select discards; and the ends are set exactly.
  const atOrBelow = (x: Operand): Node => (dist.discrete ? lt(x, lower!) : le(x, lower!));
  const interior = (x: Operand): Node => {
    const fromBelow = lower === undefined ? undefined : dist.discrete ? ge(x, lower) : gt(x, lower);
    const strictly = fromBelow !== undefined && upper !== undefined ? and(fromBelow, lt(x, upper)) : (fromBelow ?? lt(x, upper!));
    const safe = lower !== undefined && upper !== undefined ? mul(0.5, add(lower, upper)) : lower !== undefined ? add(lower, 1) : sub(upper!, 1);
    return select(strictly, x, safe);
  };
  const ends = (x: Operand, low: number, high: number, inside: Node): Node => {
    const top = upper === undefined ? inside : select(ge(x, upper), high, inside);
    return lower === undefined ? top : select(atOrBelow(x), low, top);
  };
  return {
    name: `truncated ${dist.name}`,
    support: narrowed(dist.support, lower, upper),
    discrete: dist.discrete,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(inside(x), sub(dist.logpdf(x), logMass())),
    lcdf: (x) => {
      const lo = below === undefined ? undefined : lcdf(below);
      const part = lo === undefined ? lcdf(interior(x)) : logDiffExp(lcdf(interior(x)), lo);
      return ends(x, -Infinity, 0, sub(part, logMass()));
    },
    lccdf: (x) => {
      const part = upper === undefined ? lccdf(interior(x)) : logDiffExp(lccdf(interior(x)), lccdf(upper));
      return ends(x, 0, -Infinity, sub(part, logMass()));
    },
    sample: (rng, shape = [], at) => rejectionDraws(dist, shape, batchShape, limits, rng, at),
  };
}

// Draws of `dist` of shape [...shape, ...batch], each redrawn until it lies in [lo, hi].
function rejectionDraws(
  dist: Distribution, shape: Shape, batch: Shape, limits: readonly Operand[], rng: Rng, at: ValuesAt | undefined,
): TensorValue {
  const full = [...shape, ...batch];
  const [lo, hi] = broadcastValues(evalOperands(limits, at), batch);
  const n = sizeOf(full), nb = sizeOf(batch);
  const out = new Float64Array(n);
  let pending = Array.from({ length: n }, (_, i) => i);
  for (let round = 0; round < ROUNDS && pending.length > 0; round++) {
    const draws = sampleToShape(dist, full, rng, at)!.data;
    pending = pending.filter((i) => {
      const v = draws[i]!, b = i % nb;
      if (v >= lo![b]! && v <= hi![b]!) {
        out[i] = v;
        return false;
      }
      return true;
    });
  }
  if (pending.length > 0) {
    throw new ModelError(`truncated ${dist.name}: no draw fell inside the bounds in ${ROUNDS} tries; the truncation keeps almost none of the distribution's mass`);
  }
  return { dtype: "f64", shape: [...full], data: out };
}

// The support of dist cut to [lower, upper]: a bound left out keeps the distribution's own.
function narrowed(support: Support, lower: Operand | undefined, upper: Operand | undefined): Support {
  const ownLower = support.kind === "positive" || support.kind === "unit" || support.kind === "nonnegative_int" || support.kind === "counts" ? 0
    : support.kind === "lower" || support.kind === "interval" || support.kind === "int_interval" ? support.lower
    : undefined;
  const ownUpper = support.kind === "unit" ? 1 : support.kind === "upper" || support.kind === "interval" || support.kind === "int_interval" ? support.upper : undefined;
  const lo = tighter(lower, ownLower, Math.max);
  const hi = tighter(upper, ownUpper, Math.min);
  const discrete = support.kind === "nonnegative_int" || support.kind === "int_interval" || support.kind === "counts";
  if (lo !== undefined && hi !== undefined) return discrete ? { kind: "int_interval", lower: lo, upper: hi } : { kind: "interval", lower: lo, upper: hi };
  if (lo !== undefined) return discrete ? support : lo === 0 && support.kind === "positive" ? support : { kind: "lower", lower: lo };
  if (hi !== undefined) return { kind: "upper", upper: hi };
  return support;
}

// The given bound, or the distribution's own where none is given; of two numbers, the tighter one.
function tighter(given: Operand | undefined, own: Operand | undefined, pick: (a: number, b: number) => number): Operand | undefined {
  if (given === undefined) return own;
  if (typeof given === "number" && typeof own === "number") return pick(given, own);
  return given;
}

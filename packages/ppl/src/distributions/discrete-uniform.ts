import { add, and, div, floor, ge, le, log, lt, mul, neg, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

const isInteger = (v: number) => Number.isInteger(v);

/** Stan's discrete_range(lower, upper): the integers lower..upper, each with probability 1/(upper − lower + 1). */
export function discreteUniform(lower: Operand, upper: Operand): Distribution {
  checkParam("discreteUniform", "lower", lower, isInteger, "an integer");
  checkParam("discreteUniform", "upper", upper, isInteger, "an integer");
  if (typeof lower === "number" && typeof upper === "number" && !(lower <= upper)) {
    throw new ModelError(`discreteUniform: lower (${lower}) must not be above upper (${upper}); swap them`);
  }
  const batchShape = batchShapeOf("discreteUniform", { lower, upper });
  const count = () => add(sub(upper, lower), 1);
  return {
    name: "discrete_range",
    support: { kind: "int_interval", lower, upper },
    discrete: true,
    batchShape,
    eventShape: [],
    logpdf: (y) => restrict(and(ge(y, lower), le(y, upper)), neg(log(count()))),
    // P(Y ≤ y) = (⌊y⌋ − lower + 1)/count and P(Y > y) = (upper − ⌊y⌋)/count between the ends (Stan's discrete_range_lcdf and _lccdf).
    lcdf: (y) => {
      const { below, atTop, yc } = rangePosition(y, lower, upper);
      return select(below, -Infinity, select(atTop, 0, sub(log(add(sub(yc, lower), 1)), log(count()))));
    },
    lccdf: (y) => {
      const { below, atTop, yc } = rangePosition(y, lower, upper);
      return select(below, 0, select(atTop, -Infinity, sub(log(sub(upper, yc)), log(count()))));
    },
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [lower, upper], bindings, (r, [a, b]) => a! + Math.min(b! - a!, Math.floor(r.uniform() * (b! - a! + 1)))),
    mean: () => full(mul(0.5, add(lower, upper)), batchShape),
    variance: () => full(div(sub(square(count()), 1), 12), batchShape),
  };
}

// Where ⌊y⌋ lies against lower..upper, and ⌊y⌋ clamped into lower..upper − 1 (the range where both CDFs are strictly inside (0, 1)).
function rangePosition(y: Operand, lower: Operand, upper: Operand): { below: Node; atTop: Node; yc: Node } {
  const yf = floor(y);
  const below = lt(yf, lower);
  const atTop = ge(yf, upper);
  return { below, atTop, yc: select(and(ge(yf, lower), lt(yf, upper)), yf, lower) };
}

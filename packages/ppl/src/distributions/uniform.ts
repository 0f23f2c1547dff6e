import { add, and, div, ge, gt, le, log, lt, mul, neg, select, square, sub, type Node, type Operand } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { boundOrderFix } from "../transforms/transform.ts";
import type { Distribution } from "./distribution.ts";
import { batchShapeOf, checkParam, full, isFiniteNumber, restrict } from "./helpers.ts";
import { sampleScalar } from "./sampling.ts";

/** Uniform(lower, upper); its support gives a parameter the interval transform. */
export function uniform(lower: Operand, upper: Operand): Distribution {
  checkParam("uniform", "lower", lower, isFiniteNumber, "finite");
  checkParam("uniform", "upper", upper, isFiniteNumber, "finite");
  if (typeof lower === "number" && typeof upper === "number" && !(lower < upper)) {
    throw new ModelError(`uniform: lower (${lower}) must be below upper (${upper}); ${boundOrderFix(lower, upper)}`);
  }
  const batchShape = batchShapeOf("uniform", { lower, upper });
  return {
    name: "uniform",
    support: { kind: "interval", lower, upper },
    discrete: false,
    batchShape,
    eventShape: [],
    logpdf: (x) => restrict(and(ge(x, lower), le(x, upper)), neg(log(sub(upper, lower)))),
    lcdf: (x) => uniformLogTail(x, lower, upper, sub(x, lower)),
    lccdf: (x) => uniformLogTail(x, lower, upper, sub(upper, x)),
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [lower, upper], bindings, (r, [a, b]) => a! + (b! - a!) * r.uniform()),
    mean: () => full(mul(0.5, add(lower, upper)), batchShape),
    variance: () => full(div(square(sub(upper, lower)), 12), batchShape),
  };
}

// log(d / (upper − lower)) for x inside the interval, where d is the distance from x to the bound
// the tail starts at; −∞ where the tail is empty and 0 where it holds everything.
function uniformLogTail(x: Operand, lower: Operand, upper: Operand, d: Node): Node {
  const inside = and(gt(x, lower), lt(x, upper));
  const width = sub(upper, lower);
  const frac = div(select(inside, d, mul(0.5, width)), width);
  // d vanishes at the bound the tail starts from: below it the tail is empty, past the other bound it is everything.
  const empty = le(d, 0);
  return select(inside, log(frac), select(empty, -Infinity, 0));
}

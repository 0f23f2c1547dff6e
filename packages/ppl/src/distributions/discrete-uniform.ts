import { add, and, div, ge, le, log, mul, neg, square, sub, type Operand } from "@ppl/tensor";
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
    sample: (rng, shape = [], bindings) =>
      sampleScalar(rng, shape, batchShape, [lower, upper], bindings, (r, [a, b]) => a! + Math.min(b! - a!, Math.floor(r.uniform() * (b! - a! + 1)))),
    mean: () => full(mul(0.5, add(lower, upper)), batchShape),
    variance: () => full(div(sub(square(count()), 1), 12), batchShape),
  };
}

import { add, and, div, ge, le, log, mul, neg, square, sub, type Operand } from "@ppl/tensor";
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
    sample: (rng, shape = [], bindings) => sampleScalar(rng, shape, batchShape, [lower, upper], bindings, (r, [a, b]) => a! + (b! - a!) * r.uniform()),
    mean: () => full(mul(0.5, add(lower, upper)), batchShape),
    variance: () => full(div(square(sub(upper, lower)), 12), batchShape),
  };
}

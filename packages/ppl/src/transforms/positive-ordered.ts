import { concat, cumsum, exp, log, slice, sub, sum, type Shape } from "@ppl/tensor";
import type { Constraint, Transform } from "./transform.ts";
import { vectorLength } from "./vector-shape.ts";

/** Positive increasing vector: x = cumsum(exp(u)). */
export function positiveOrdered(): Constraint {
  return {
    name: "positive_ordered",
    bind(shape: Shape): Transform {
      const k = vectorLength("positiveOrdered", shape, 1);
      return {
        name: "positive_ordered",
        shape,
        constrainedSize: k,
        unconstrainedSize: k,
        forward: (u) => cumsum(exp(u)),
        inverse: (x) => (k === 1 ? log(x) : log(concat([slice(x, [{ stop: 1 }]), sub(slice(x, [{ start: 1 }]), slice(x, [{ stop: -1 }]))]))),
        logJacobian: (u) => sum(u),
      };
    },
  };
}

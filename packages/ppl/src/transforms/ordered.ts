import { concat, cumsum, exp, log, slice, sub, sum, type Shape } from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";
import type { Constraint, Transform } from "./transform.ts";
import { vectorLength } from "./vector-shape.ts";

/** Increasing vector: x1 = u1, x_k = x_{k−1} + exp(u_k). */
export function ordered(): Constraint {
  return {
    name: "ordered",
    bind(shape: Shape): Transform {
      const k = vectorLength("ordered", shape, 1);
      return {
        name: "ordered",
        shape,
        constrainedSize: k,
        unconstrainedSize: k,
        forward: (u) => (k === 1 ? u : cumsum(concat([slice(u, [{ stop: 1 }]), exp(slice(u, [{ start: 1 }]))]))),
        inverse: (x) => (k === 1 ? x : concat([slice(x, [{ stop: 1 }]), log(sub(slice(x, [{ start: 1 }]), slice(x, [{ stop: -1 }])))])),
        logJacobian: (u) => (k === 1 ? lift(0) : sum(slice(u, [{ start: 1 }]))),
      };
    },
  };
}

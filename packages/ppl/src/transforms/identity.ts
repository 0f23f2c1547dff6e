import { reshape, type Shape } from "@ppl/tensor";
import { lift, sizeOf } from "@ppl/tensor/internals";
import type { Constraint, Transform } from "./transform.ts";

/** No constraint: the parameter is sampled as it is. */
export function real(): Constraint {
  return {
    name: "real",
    bind(shape: Shape): Transform {
      const n = sizeOf(shape);
      return {
        name: "real",
        shape,
        constrainedSize: n,
        unconstrainedSize: n,
        forward: (u) => reshape(u, shape),
        inverse: (x) => reshape(x, [n]),
        logJacobian: () => lift(0),
      };
    },
  };
}

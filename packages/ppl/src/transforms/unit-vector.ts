import { div, mul, sqrt, square, sum, type Shape } from "@ppl/tensor";
import type { Constraint, Transform } from "./transform.ts";
import { vectorLength } from "./vector-shape.ts";

/**
 * Unit-length vector x = u/|u| (Stan's unit_vector). The map is not a bijection; as in Stan,
 * −|u|²/2 takes the Jacobian's place so the radius has a standard-normal-like prior and stays near 1.
 */
export function unitVector(): Constraint {
  return {
    name: "unit_vector",
    bind(shape: Shape): Transform {
      const k = vectorLength("unitVector", shape, 2);
      return {
        name: "unit_vector",
        shape,
        constrainedSize: k,
        unconstrainedSize: k,
        forward: (u) => div(u, sqrt(sum(square(u)))),
        inverse: (x) => x,
        logJacobian: (u) => mul(-0.5, sum(square(u))),
      };
    },
  };
}

import { concat, constant, cumsum, div, mul, neg, slice, sub, type Shape } from "@ppl/tensor";
import type { Constraint, Transform } from "./transform.ts";
import { vectorLength } from "./vector-shape.ts";

/**
 * Stan's (2.36) sum_to_zero_vector[K]: an isometry from K−1 values onto the hyperplane Σx = 0.
 * With w_i = y_i/√(i(i+1)) (i = 1..K−1), x_0 = Σ_i w_i and x_j = Σ_{i>j} w_i − j·w_j; each y_i
 * moves x along an orthonormal direction, so log|J| (volume on the hyperplane) is 0.
 */
export function sumToZero(): Constraint {
  return {
    name: "sum_to_zero",
    bind(shape: Shape): Transform {
      const k = vectorLength("sumToZero", shape, 2);
      const n = k - 1;
      const scale = constant(Array.from({ length: n }, (_, i) => Math.sqrt((i + 1) * (i + 2))), [n]);
      const index = constant(Array.from({ length: n }, (_, i) => i + 1), [n]);
      const zero = constant(0, [1]);
      return {
        name: "sum_to_zero",
        shape,
        constrainedSize: k,
        unconstrainedSize: n,
        forward: (y) => {
          const w = div(y, scale);
          return sub(concat([cumsum(w, 0, true), zero]), concat([zero, mul(index, w)]));
        },
        // Summing the forward map's x_j over j ≥ i telescopes to −i·S_i with S_i = Σ_{l≥i} w_l,
        // so S comes from tail sums of x and w_i = S_i − S_{i+1}.
        inverse: (x) => {
          const s = neg(div(cumsum(slice(x, [{ start: 1 }]), 0, true), index));
          const w = sub(s, concat([slice(s, [{ start: 1 }]), zero]));
          return mul(w, scale);
        },
        logJacobian: () => constant(0, []),
      };
    },
  };
}

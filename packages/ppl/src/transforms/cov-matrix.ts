import { add, cholesky, constant, matmul, mT, mul, sum, type Shape } from "@ppl/tensor";
import { choleskyLayout } from "./cholesky-layout.ts";
import { squareSize } from "./square-shape.ts";
import type { Constraint, Transform } from "./transform.ts";

/**
 * Stan's cov_matrix[K]: Σ = L·Lᵀ with L lower triangular, its diagonal exp of the unconstrained
 * values (K(K+1)/2 of them, row by row). log|J| = K·log 2 + Σ_k (K − k + 1)·log L_kk (k from 0):
 * the map L → LLᵀ on the lower triangles gives 2^K·Π L_kk^(K−k), the exp one more L_kk each.
 */
export function covMatrix(): Constraint {
  return {
    name: "cov_matrix",
    bind(shape: Shape): Transform {
      const k = squareSize("covMatrix", shape, 1);
      const layout = choleskyLayout(k, k);
      const powers = constant(Array.from({ length: k }, (_, i) => k - i + 1), [k]);
      return {
        name: "cov_matrix",
        shape,
        constrainedSize: k * k,
        unconstrainedSize: layout.size,
        // Σ_ij and Σ_ji are the same products summed in the same order, so Σ is exactly symmetric.
        forward: (u) => {
          const l = layout.factor(u);
          return matmul(l, mT(l));
        },
        inverse: (x) => layout.free(cholesky(x)),
        logJacobian: (u) => add(k * Math.LN2, sum(mul(powers, layout.logDiagonal(u)))),
      };
    },
  };
}

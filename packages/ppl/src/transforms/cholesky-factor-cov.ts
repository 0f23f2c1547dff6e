import { sum, type Shape } from "@ppl/tensor";
import { ModelError } from "../model/errors.ts";
import { choleskyLayout } from "./cholesky-layout.ts";
import type { Constraint, Transform } from "./transform.ts";

/**
 * Stan's cholesky_factor_cov[M, N] (M ≥ N): an M×N lower-triangular matrix with a positive
 * diagonal, from N(N+1)/2 + (M−N)N values taken row by row, the diagonal as logs; log|J| is the
 * sum of those logs.
 */
export function choleskyFactorCov(): Constraint {
  return {
    name: "cholesky_factor_cov",
    bind(shape: Shape): Transform {
      if (shape.length !== 2 || shape[0]! < shape[1]! || shape[1]! < 1) {
        throw new ModelError(`choleskyFactorCov: needs an M×N matrix parameter with M ≥ N ≥ 1, got shape [${shape.join(",")}]; pass { shape: [M, N] }`);
      }
      const [m, n] = [shape[0]!, shape[1]!];
      const layout = choleskyLayout(m, n);
      return {
        name: "cholesky_factor_cov",
        shape,
        constrainedSize: m * n,
        unconstrainedSize: layout.size,
        forward: (u) => layout.factor(u),
        inverse: (x) => layout.free(x),
        logJacobian: (u) => sum(layout.logDiagonal(u)),
      };
    },
  };
}

import type { Rng } from "../random/rng.ts";
import type { BatchedObjective } from "./batched-objective.ts";
import { finiteDifferenceHessian } from "./hessian.ts";
import { cholesky, solveUpper, symmetricEigen } from "./linalg.ts";
import type { Objective } from "./objective.ts";

/** The normal approximation at a mode: its mean and the Cholesky factor of its precision (the negative Hessian of the log density). */
export interface LaplaceApproximation {
  readonly mode: Float64Array;
  /** Lower L with L Lᵀ = −∇² log p at the mode (row-major). */
  readonly precisionFactor: Float64Array;
  readonly dim: number;
}

/** A Hessian that is not negative definite at the point given as the mode: no normal approximation there. */
export class HessianError extends Error {
  override name = "HessianError";
}

/**
 * The Laplace approximation at `mode` of the density whose negative log is `obj` (so the
 * precision is obj's Hessian there, by finite differences of its gradient). Throws a HessianError
 * naming the smallest eigenvalue when the Hessian is singular or indefinite. The Hessian's 2·dim
 * gradients are one call of `batched` where given (the GPU's batched gradient, say).
 */
export function laplaceApproximation(obj: Objective, mode: Float64Array, batched?: BatchedObjective): LaplaceApproximation {
  const n = obj.dim;
  const h = finiteDifferenceHessian(obj, mode, batched);
  if (!h.every(Number.isFinite)) throw new HessianError("the Hessian at the mode is not finite (the log density or its gradient is infinite or NaN near the mode)");
  const l = cholesky(h, n);
  const { values } = symmetricEigen(h, n);
  const smallest = Math.min(...values);
  const largest = Math.max(...values.map(Math.abs));
  if (l === null || !(smallest > 1e-12 * largest)) {
    const what = smallest <= 0 ? `indefinite or singular (smallest eigenvalue of the negative Hessian ${smallest.toPrecision(3)})` : `near singular (eigenvalues from ${smallest.toPrecision(3)} to ${largest.toPrecision(3)})`;
    throw new HessianError(`the Hessian of the log density at the mode is ${what}: the point is not a strict maximum, or the posterior is improper along some direction; check that the optimization converged, or give the flat direction a proper prior`);
  }
  return { mode: Float64Array.from(mode), precisionFactor: l, dim: n };
}

/** One draw from the approximation: the unconstrained point and log_g, the approximation's log density up to its constant (−½ zᵀz). */
export function laplaceDraw(approx: LaplaceApproximation, rng: Rng): { readonly x: Float64Array; readonly logG: number } {
  const z = new Float64Array(approx.dim);
  let zz = 0;
  for (let i = 0; i < z.length; i++) {
    z[i] = rng.normal();
    zz += z[i]! ** 2;
  }
  const v = solveUpper(approx.precisionFactor, approx.dim, z);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! + approx.mode[i]!;
  return { x: v, logG: -0.5 * zz };
}

import { dot, type Objective } from "./objective.ts";
import { finiteDifferenceHessian } from "./hessian.ts";
import { symmetricEigen } from "./linalg.ts";
import { startPoint, type OptimizerMethod, type PointState } from "./method.ts";

/** Newton's state is the point alone: the Hessian is made afresh at each iterate. */
export type NewtonState = PointState;

/**
 * −H⁻¹g with H the Hessian by finite differences of the gradient, made positive definite by taking
 * each eigenvalue's absolute value, floored at 1e-8 of the largest (as Stan's Newton optimizer
 * makes its Hessian negative definite before solving), so that the step always descends.
 */
function newtonStep(obj: Objective, state: PointState): Float64Array {
  const n = obj.dim;
  const { values, vectors } = symmetricEigen(finiteDifferenceHessian(obj, state.x), n);
  const largest = Math.max(...values.map(Math.abs), Number.MIN_VALUE);
  const p = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    let c = 0;
    for (let i = 0; i < n; i++) c += vectors[i * n + k]! * state.g[i]!;
    c /= Math.max(Math.abs(values[k]!), 1e-8 * largest);
    for (let i = 0; i < n; i++) p[i] = p[i]! - c * vectors[i * n + k]!;
  }
  return p;
}

/** Newton's method with a strong Wolfe line search from the full step. */
export const newton: OptimizerMethod<NewtonState> = {
  name: "newton",
  init: (obj: Objective, x0: Float64Array) => startPoint(obj, x0),
  direction: (obj, state) => ({ p: newtonStep(obj, state), alpha0: 1 }),
  update: (_state, next) => next,
  reset: (state) => state,
  scaledGradient: (obj, state) => -dot(state.g, newtonStep(obj, state)),
};

import type { Objective } from "./objective.ts";

/** What every optimizer's state holds: the current point, its value and gradient, and counts. */
export interface PointState {
  readonly x: Float64Array;
  readonly f: number;
  readonly g: Float64Array;
  readonly iteration: number;
  readonly evaluations: number;
}

/** Settings an optimizer reads besides the convergence test. */
export interface MethodSettings {
  /** L-BFGS's number of (s, y) pairs kept. */
  readonly historySize: number;
  /** The first iteration's step length along −g. */
  readonly initAlpha: number;
}

/**
 * An optimizer as pure functions over an explicit state (BlackJAX's shape): `init` evaluates the
 * start, `direction` proposes a search direction and first step, `update` takes the point the
 * line search accepted and returns the next state, `reset` forgets the curvature estimate (after a
 * failed search). States are never mutated, so many paths can be held and stepped side by side.
 */
export interface OptimizerMethod<S extends PointState> {
  readonly name: "lbfgs" | "bfgs" | "newton";
  init(obj: Objective, x0: Float64Array, settings: MethodSettings): S;
  direction(obj: Objective, state: S, settings: MethodSettings): { readonly p: Float64Array; readonly alpha0: number };
  update(state: S, next: PointState, settings: MethodSettings): S;
  reset(state: S): S;
  /** gᵀH⁻¹g at the state's point with the method's Hessian estimate, for the relative gradient test. */
  scaledGradient(obj: Objective, state: S, settings: MethodSettings): number;
}

/** Evaluates the objective at x0: the first state's point. */
export function startPoint(obj: Objective, x0: Float64Array): PointState {
  const g = new Float64Array(obj.dim);
  const x = Float64Array.from(x0);
  const f = obj.evaluate(x, g);
  return { x, f, g, iteration: 0, evaluations: 1 };
}

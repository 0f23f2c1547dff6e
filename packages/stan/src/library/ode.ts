import { ty, type SType } from "../check/types.ts";

/**
 * Stan's ODE solvers, each a higher-order function whose first argument names a user-defined
 * right-hand side. Every one is solved by the toolkit's odeRK45 (Dormand–Prince 4(5), Stan's
 * ode_rk45): the stiff and multistep solvers (bdf, adams, ckrk) are mapped onto it too, which is
 * exact up to the tolerances for a problem that is not stiff over the posterior.
 */
export interface OdeSolver {
  /** integrate_ode_*: f(t, y, theta, x_r, x_i) returns array[] real, the result is array[N, n] real. */
  readonly legacy: boolean;
  /** Whether rtol, atol and max_num_steps are given (always optional for the legacy interface). */
  readonly tolerances: boolean;
}

export const ODE_SOLVERS: Readonly<Record<string, OdeSolver>> = {
  integrate_ode_rk45: { legacy: true, tolerances: false },
  integrate_ode_bdf: { legacy: true, tolerances: false },
  integrate_ode_adams: { legacy: true, tolerances: false },
  ode_rk45: { legacy: false, tolerances: false },
  ode_bdf: { legacy: false, tolerances: false },
  ode_adams: { legacy: false, tolerances: false },
  ode_ckrk: { legacy: false, tolerances: false },
  ode_rk45_tol: { legacy: false, tolerances: true },
  ode_bdf_tol: { legacy: false, tolerances: true },
  ode_adams_tol: { legacy: false, tolerances: true },
  ode_ckrk_tol: { legacy: false, tolerances: true },
};

/**
 * The steps a solve may attempt between two output times when the program does not say: Stan's
 * default (10⁸ for the new interface, 10⁶ for the legacy one) would make each interval a scan of
 * that length on the GPU; odeRK45's default is used instead.
 */
export const DEFAULT_MAX_STEPS = 1000;

/** The result type of an ODE solver's call, or a message saying what is wrong with its arguments. */
export function odeType(name: string, args: readonly SType[]): SType | string {
  const s = ODE_SOLVERS[name]!;
  const fixed = s.legacy ? 7 : s.tolerances ? 7 : 4;
  if (s.legacy ? args.length !== 7 && args.length !== 10 : args.length < fixed) {
    return s.legacy
      ? `takes (f, y0, t0, ts, theta, x_r, x_i) or those and (rel_tol, abs_tol, max_num_steps), found ${args.length} arguments`
      : `takes (f, y0, t0, ts${s.tolerances ? ", rel_tol, abs_tol, max_num_steps" : ""}, ...), found ${args.length} arguments`;
  }
  return s.legacy ? ty("real", 2) : ty("vector", 1);
}

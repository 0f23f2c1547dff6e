/** CmdStan's convergence settings of optimize, with its defaults and meanings. */
export interface ConvergenceOptions {
  /** Most iterations. */
  readonly iter: number;
  /** Converged when the objective changes by less than this between iterations. */
  readonly tolObj: number;
  /** Converged when the relative change of the objective, |Δf| / max(|f|, |f_prev|, 1), is below this times machine epsilon. */
  readonly tolRelObj: number;
  /** Converged when the gradient's norm is below this. */
  readonly tolGrad: number;
  /** Converged when the gradient scaled by the inverse Hessian estimate, gᵀH⁻¹g / max(|f|, 1), is below this times machine epsilon. */
  readonly tolRelGrad: number;
  /** Converged when the parameters (unconstrained) move by less than this in norm. */
  readonly tolParam: number;
}

/** CmdStan's defaults. */
export const CONVERGENCE_DEFAULTS: ConvergenceOptions = {
  iter: 2000, tolObj: 1e-12, tolRelObj: 1e4, tolGrad: 1e-8, tolRelGrad: 1e7, tolParam: 1e-8,
};

/**
 * Why an optimization stopped: a convergence criterion, or a failure (iterations spent, a line
 * search that made no progress, or one whose objective kept falling as far as its steps reached).
 */
export type Termination = "tol-obj" | "tol-rel-obj" | "tol-grad" | "tol-rel-grad" | "tol-param" | "max-iterations" | "line-search" | "unbounded";

/** Whether a termination is convergence. */
export function converged(t: Termination): boolean {
  return t !== "max-iterations" && t !== "line-search" && t !== "unbounded";
}

/** The message CmdStan prints for each termination, with the option that governs it. */
export function terminationMessage(t: Termination, opts: ConvergenceOptions): string {
  switch (t) {
    case "tol-obj": return `Convergence detected: absolute change in objective function was below tolerance (--tol-obj ${opts.tolObj})`;
    case "tol-rel-obj": return `Convergence detected: relative change in objective function was below tolerance (--tol-rel-obj ${opts.tolRelObj})`;
    case "tol-grad": return `Convergence detected: gradient norm is below tolerance (--tol-grad ${opts.tolGrad})`;
    case "tol-rel-grad": return `Convergence detected: relative gradient magnitude is below tolerance (--tol-rel-grad ${opts.tolRelGrad})`;
    case "tol-param": return `Convergence detected: absolute parameter change was below tolerance (--tol-param ${opts.tolParam})`;
    case "max-iterations": return `Maximum number of iterations hit (--iter ${opts.iter}), may not be at an optimum`;
    case "line-search": return "Line search failed to achieve a sufficient decrease, no more progress can be made";
    case "unbounded": return "Line search failed: the objective function (the negative log density) kept decreasing along the search direction at every step tried, each twice the last, up to 2^39 times the first: it may have no minimum (a log density that grows without bound); give every parameter a proper prior";
  }
}

/** What one iteration changed, for the convergence test. */
export interface IterationChange {
  readonly fPrev: number;
  readonly f: number;
  readonly gradNorm: number;
  /** gᵀH⁻¹g at the new point, with the method's Hessian estimate. */
  readonly scaledGrad: number;
  readonly stepNorm: number;
  readonly iteration: number;
}

/** The criterion an iteration met, in the order Stan's BFGS tests them (absolute tests, the iteration limit, then relative ones), or null to go on. */
export function convergenceTest(c: IterationChange, opts: ConvergenceOptions): Termination | null {
  const df = Math.abs(c.f - c.fPrev);
  const scale = Math.max(Math.abs(c.f), Math.abs(c.fPrev), 1);
  if (df < opts.tolObj) return "tol-obj";
  if (c.gradNorm < opts.tolGrad) return "tol-grad";
  if (c.stepNorm < opts.tolParam) return "tol-param";
  if (c.iteration >= opts.iter) return "max-iterations";
  if (df / scale < opts.tolRelObj * Number.EPSILON) return "tol-rel-obj";
  if (Math.abs(c.scaledGrad) / Math.max(Math.abs(c.f), 1) < opts.tolRelGrad * Number.EPSILON) return "tol-rel-grad";
  return null;
}

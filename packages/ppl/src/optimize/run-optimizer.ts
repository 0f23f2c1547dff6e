import { bfgs } from "./bfgs.ts";
import { CONVERGENCE_DEFAULTS, convergenceTest, converged, terminationMessage, type ConvergenceOptions, type Termination } from "./convergence.ts";
import { lbfgs } from "./lbfgs.ts";
import { runEvaluating, type Evaluating } from "./evaluating.ts";
import { LINE_SEARCH_DEFAULTS, strongWolfeSteps } from "./line-search.ts";
import type { MethodSettings, OptimizerMethod, PointState } from "./method.ts";
import { newton } from "./newton.ts";
import { norm, sub, type Objective } from "./objective.ts";

/** The optimizers by name, as --algorithm names them. */
export const OPTIMIZERS = { lbfgs, bfgs, newton } as const;

/** An optimizer's name. */
export type OptimizerName = keyof typeof OPTIMIZERS;

/** Settings of one optimization: the method, CmdStan's convergence options and the method's own. */
export interface OptimizeOptions extends Partial<ConvergenceOptions>, Partial<MethodSettings> {
  readonly algorithm?: OptimizerName;
}

/** One iteration's outcome: the next state, or why it stopped. */
export interface StepResult<S extends PointState> {
  readonly state: S;
  readonly termination: Termination | null;
}

/** Where an optimization ended. */
export interface OptimizeResult {
  readonly x: Float64Array;
  /** The objective at x (the negative log density for a model). */
  readonly f: number;
  readonly g: Float64Array;
  readonly iterations: number;
  readonly evaluations: number;
  readonly termination: Termination;
  readonly converged: boolean;
  /** CmdStan's message for the termination. */
  readonly message: string;
}

/**
 * One iteration of a method from `state`: a direction, a strong Wolfe line search along it and
 * the update; a failed search is retried once from a reset curvature estimate (along −g), as
 * Stan's BFGS does, before it ends the run. Pure: the state passed in is left as it was.
 */
export function optimizerStep<S extends PointState>(method: OptimizerMethod<S>, obj: Objective, state: S, conv: ConvergenceOptions, settings: MethodSettings): StepResult<S> {
  return runEvaluating(optimizerStepSteps(method, obj, state, conv, settings), obj);
}

/**
 * optimizerStep as a computation whose line search requests its points (evaluating.ts), so that
 * many paths' iterations run in lockstep; `obj` serves only the method's own direction and
 * scaled gradient (L-BFGS evaluates nothing there).
 */
export function* optimizerStepSteps<S extends PointState>(method: OptimizerMethod<S>, obj: Objective, state: S, conv: ConvergenceOptions, settings: MethodSettings): Evaluating<StepResult<S>> {
  let from = state;
  let unbounded = false;
  for (let attempt = 0; attempt < 2; attempt++) {
    const { p, alpha0 } = method.direction(obj, from, settings);
    const ls = yield* strongWolfeSteps(from.x, from.f, from.g, p, alpha0, LINE_SEARCH_DEFAULTS);
    unbounded = ls.unbounded;
    if (ls.ok && ls.f <= from.f) {
      const next = method.update(from, { x: ls.x, f: ls.f, g: ls.g, iteration: from.iteration + 1, evaluations: from.evaluations + ls.evaluations }, settings);
      const termination = convergenceTest({
        fPrev: from.f, f: next.f, gradNorm: norm(next.g), scaledGrad: method.scaledGradient(obj, next, settings),
        stepNorm: norm(sub(next.x, from.x)), iteration: next.iteration,
      }, conv);
      return { state: next, termination };
    }
    from = method.reset({ ...from, evaluations: from.evaluations + ls.evaluations });
  }
  return { state: from, termination: unbounded ? "unbounded" : "line-search" };
}

/** Minimizes an objective from x0 with CmdStan's defaults for what `opts` leaves out. */
export function minimize(obj: Objective, x0: Float64Array, opts: OptimizeOptions = {}): OptimizeResult {
  const conv: ConvergenceOptions = { ...CONVERGENCE_DEFAULTS, ...definedOnly(opts, Object.keys(CONVERGENCE_DEFAULTS)) };
  const settings: MethodSettings = { historySize: opts.historySize ?? 5, initAlpha: opts.initAlpha ?? 0.001 };
  const method = OPTIMIZERS[opts.algorithm ?? "lbfgs"] as OptimizerMethod<PointState>;
  let state = method.init(obj, x0, settings);
  if (!Number.isFinite(state.f) || !state.g.every(Number.isFinite)) {
    throw new OptimizationError(`the objective is not finite at the initial point (value ${state.f}); choose another initial point`);
  }
  let termination: Termination | null = norm(state.g) < conv.tolGrad ? "tol-grad" : null;
  while (termination === null) {
    if (state.iteration >= conv.iter) {
      termination = "max-iterations";
      break;
    }
    const r = optimizerStep(method, obj, state, conv, settings);
    state = r.state;
    termination = r.termination;
  }
  return {
    x: state.x, f: state.f, g: state.g, iterations: state.iteration, evaluations: state.evaluations,
    termination, converged: converged(termination), message: terminationMessage(termination, conv),
  };
}

/** An optimization that cannot start or go on (its message says why and what to change). */
export class OptimizationError extends Error {
  override name = "OptimizationError";
}

function definedOnly(o: object, keys: readonly string[]): Partial<ConvergenceOptions> {
  return Object.fromEntries(Object.entries(o).filter(([k, v]) => keys.includes(k) && v !== undefined)) as Partial<ConvergenceOptions>;
}

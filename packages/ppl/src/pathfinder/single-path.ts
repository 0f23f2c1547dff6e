/**
 * Single-path Pathfinder (Zhang, Carpenter, Gelman & Vehtari 2022, Algorithm 1, as Stan's
 * `pathfinder_lbfgs_single`): L-BFGS from the initial point; at each iterate the normal
 * approximation from the path's history (low-rank-normal.ts) and its Monte Carlo ELBO from
 * `numElboDraws` draws; the iterate of the largest ELBO is kept, and `numDraws` draws are made
 * from its approximation (the ELBO draws first). A path fails when L-BFGS cannot start (its line
 * search fails before the second iterate) or no iterate has a finite ELBO.
 */
import { CONVERGENCE_DEFAULTS, terminationMessage, type ConvergenceOptions, type Termination } from "../optimize/convergence.ts";
import { runEvaluating, type Evaluating } from "../optimize/evaluating.ts";
import { lbfgs, type LbfgsState } from "../optimize/lbfgs.ts";
import type { MethodSettings } from "../optimize/method.ts";
import { norm, sub, type Objective } from "../optimize/objective.ts";
import { optimizerStepSteps } from "../optimize/run-optimizer.ts";
import type { SeedKey } from "../random/streams.ts";
import { approximateDrawsSteps, concatDraws, elboOf, type ApproximateDraws } from "./approximate-draws.ts";
import { lowRankNormal, type LowRankNormal } from "./low-rank-normal.ts";
import { emptyHistory, pushPair } from "./path-history.ts";

/** The settings of one path: CmdStan's pathfinder options and their defaults. */
export interface PathSettings extends ConvergenceOptions {
  /** L-BFGS's history size (J in the paper). */
  readonly historySize: number;
  /** The first iteration's step length along −g. */
  readonly initAlpha: number;
  /** Draws per ELBO estimate (K). */
  readonly numElboDraws: number;
  /** Draws from the best approximation (M). */
  readonly numDraws: number;
}

/** CmdStan's defaults: its optimizer tolerances, at most 1000 L-BFGS iterations, J = 5, K = 25, M = 1000. */
export const PATH_DEFAULTS: PathSettings = {
  ...CONVERGENCE_DEFAULTS, iter: 1000, historySize: 5, initAlpha: 0.001, numElboDraws: 25, numDraws: 1000,
};

/** One path's outcome: its draws (null when it failed, `message` saying why) and its path. */
export interface SinglePathResult {
  readonly path: number;
  readonly draws: ApproximateDraws | null;
  /** The largest ELBO along the path (−∞ when none was finite). */
  readonly elbo: number;
  /** The L-BFGS iteration of the chosen approximation (0 when none). */
  readonly bestIteration: number;
  readonly approximation: LowRankNormal | null;
  readonly iterations: number;
  /** Gradient evaluations of L-BFGS and density evaluations of the draws. */
  readonly evaluations: number;
  readonly termination: Termination;
  readonly message: string;
}

interface Best {
  readonly elbo: number;
  readonly iteration: number;
  readonly approx: LowRankNormal;
  readonly draws: ApproximateDraws;
}

/** Runs path `path` from x0 (unconstrained, where the density is finite); its draws read the streams of `key`. */
export function singlePath(obj: Objective, x0: Float64Array, path: number, key: SeedKey, settings: PathSettings = PATH_DEFAULTS): SinglePathResult {
  return runEvaluating(singlePathSteps(obj, x0, path, key, settings), obj);
}

/**
 * singlePath as a computation (evaluating.ts): each line-search trial, each iterate's ELBO draws
 * and the output draws are one request, so that many paths run in lockstep over a batched
 * objective (multi-path.ts) with the arithmetic of a path run alone. `obj` serves only L-BFGS's
 * direction, which evaluates nothing.
 */
export function* singlePathSteps(obj: Objective, x0: Float64Array, path: number, key: SeedKey, settings: PathSettings = PATH_DEFAULTS): Evaluating<SinglePathResult> {
  const ms: MethodSettings = { historySize: settings.historySize, initAlpha: settings.initAlpha };
  const x = Float64Array.from(x0);
  const start = yield [x];
  let state: LbfgsState = { x, f: start.f[0]!, g: start.g[0]!, iteration: 0, evaluations: 1, s: [], y: [] };
  if (!Number.isFinite(state.f) || !state.g.every(Number.isFinite)) {
    return failed(path, 0, state.evaluations, "line-search", "the log density or its gradient is not finite at the initial point");
  }
  let history = emptyHistory(obj.dim);
  let best: Best | null = null;
  let drawEvaluations = 0;
  let termination: Termination | null = norm(state.g) < settings.tolGrad ? "tol-grad" : null;
  while (termination === null) {
    const r = yield* optimizerStepSteps(lbfgs, obj, state, settings, ms);
    if (r.termination === "line-search" || r.termination === "unbounded") {
      termination = r.termination;
      break;
    }
    history = pushPair(history, sub(r.state.x, state.x), sub(r.state.g, state.g), settings.historySize);
    state = r.state;
    termination = r.termination;
    if (history.s.length === 0) continue;
    const approx = lowRankNormal(state.x, state.g, history.alpha, history.s, history.y);
    if (approx === null) continue;
    const draws = yield* approximateDrawsSteps(approx, { key, path, iteration: state.iteration }, 0, settings.numElboDraws);
    drawEvaluations += settings.numElboDraws;
    const elbo = elboOf(draws);
    if (elbo > (best?.elbo ?? -Infinity)) best = { elbo, iteration: state.iteration, approx, draws };
  }
  const evaluations = state.evaluations + drawEvaluations;
  if ((termination === "line-search" || termination === "unbounded") && state.iteration < 2) {
    return failed(path, state.iteration, evaluations, termination, `L-BFGS could not start (${terminationMessage(termination, settings)} at iteration ${state.iteration + 1})`);
  }
  if (state.iteration === 0) return failed(path, 0, evaluations, termination, `L-BFGS made no step from the initial point (${terminationMessage(termination, settings)}): the density is flat or not finite around it`);
  if (best === null) return failed(path, state.iteration, evaluations, termination, `no iterate of the ${state.iteration} L-BFGS iterations gave a finite ELBO (the density was not finite at the approximations' draws)`);
  const more = yield* approximateDrawsSteps(best.approx, { key, path, iteration: best.iteration }, settings.numElboDraws, settings.numDraws);
  const elboDraws = settings.numDraws < settings.numElboDraws ? head(best.draws, settings.numDraws) : best.draws;
  return {
    path, draws: concatDraws(elboDraws, more), elbo: best.elbo, bestIteration: best.iteration, approximation: best.approx,
    iterations: state.iteration, evaluations: evaluations + more.lp.length, termination, message: terminationMessage(termination, settings),
  };
}

function failed(path: number, iterations: number, evaluations: number, termination: Termination, message: string): SinglePathResult {
  return { path, draws: null, elbo: -Infinity, bestIteration: 0, approximation: null, iterations, evaluations, termination, message };
}

function head(d: ApproximateDraws, n: number): ApproximateDraws {
  return { x: d.x.slice(0, n), lpApprox: d.lpApprox.slice(0, n), lp: d.lp.slice(0, n) };
}

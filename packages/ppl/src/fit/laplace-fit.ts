/**
 * The Laplace approximation of a model (CmdStan's laplace): the mode (given, or found by L-BFGS
 * and polished by Newton's steps), the negative Hessian there as the precision, and draws from
 * that normal with each draw's log density (log_p__) and the approximation's (log_g__).
 */
import { HessianError, laplaceApproximation, laplaceDraw, type LaplaceApproximation } from "../optimize/laplace.ts";
import { minimize, OptimizationError, type OptimizeResult } from "../optimize/run-optimizer.ts";
import { loopedObjective, pointObjective, type BatchedObjective } from "../optimize/batched-objective.ts";
import type { Objective } from "../optimize/objective.ts";
import { philoxRng } from "../random/rng.ts";
import type { ApproximationTarget, LaplaceOptions, MethodDraws } from "./approximate-options.ts";
import { FitError } from "./fit-error.ts";

/**
 * The mode from `start`: L-BFGS gets near it; Newton's steps (the Hessian is needed anyway) then
 * finish it, where an ill-conditioned posterior stops L-BFGS's relative tests early (kidiq's
 * regression). A Newton step that cannot decrease the objective further (a line search failing at
 * the mode to rounding) leaves L-BFGS's point, which converged. With `batched` (the GPU's batched
 * gradient, say) the search runs there: L-BFGS as one path, each of its evaluations a one-row
 * call, and each Newton step's Hessian one call of 2·dim rows.
 */
export function laplaceMode(objective: Objective, start: Float64Array, batched?: BatchedObjective): OptimizeResult {
  if (batched !== undefined) objective = pointObjective(batched);
  let near: OptimizeResult;
  try {
    near = minimize(objective, start, {});
  } catch (e) {
    if (e instanceof OptimizationError) throw new FitError(`laplace: ${e.message}`, { cause: e });
    throw e;
  }
  const polished = near.converged ? minimize(objective, near.x, { algorithm: "newton" }) : near;
  return polished.f <= near.f ? { ...polished, converged: near.converged } : near;
}

/** `n` draws from the approximation (the seed's stream 0): the points, log_p__ and log_g__; their densities one call of `batched` where given. */
export function laplaceDraws(objective: Objective, approx: LaplaceApproximation, seed: number, n: number, batched: BatchedObjective = loopedObjective(objective)): { points: Float64Array[]; logP: Float64Array; logG: Float64Array } {
  const rng = philoxRng(seed, 0);
  const points: Float64Array[] = [];
  const logG = new Float64Array(n);
  for (let d = 0; d < n; d++) {
    const { x, logG: g } = laplaceDraw(approx, rng);
    points.push(x);
    logG[d] = g;
  }
  return { points, logP: logDensities(batched, points), logG };
}

/** log p at each point (−f of the objective, in one batched call). */
export function logDensities(batched: BatchedObjective, points: readonly Float64Array[]): Float64Array {
  const dim = batched.dim;
  const x = new Float64Array(points.length * dim);
  points.forEach((p, i) => x.set(p, i * dim));
  const f = new Float64Array(points.length);
  if (points.length > 0) batched.evaluateBatch(x, points.length, f, new Float64Array(points.length * dim));
  return f.map((v) => -v);
}

/** The Laplace approximation's draws of a target (a FitError when the mode is not found or not a strict maximum). */
export function laplaceFit(target: ApproximationTarget, o: LaplaceOptions, seed: number, start: () => Float64Array): MethodDraws {
  let mode = o.mode;
  if (mode === undefined) {
    const found = laplaceMode(target.objective, start(), target.batched);
    if (!found.converged) throw new FitError(`laplace: the mode was not found: ${found.message}`, { cause: found });
    mode = found.x;
  }
  let approx: LaplaceApproximation;
  try {
    approx = laplaceApproximation(target.objective, mode, target.batched);
  } catch (e) {
    if (e instanceof HessianError) throw new FitError(`laplace: ${e.message}`, { cause: e });
    throw e;
  }
  const { points, logP, logG } = laplaceDraws(target.objective, approx, seed, o.draws ?? 1000, target.batched);
  return { points, firstDraw: 0, lead: new Map([["log_p__", logP], ["log_g__", logG]]), notes: [], converged: true };
}

/**
 * Draws from a Pathfinder approximation with the model's log density at each: the Monte Carlo
 * ELBO at an iterate (Stan's `est_approx_draws`) and the path's output draws. Draw k at iterate t
 * of path p reads the normals of the Philox stream (seed, p, t, Pathfinder, k), so the ELBO draws
 * at the best iterate are the first of its output draws (as Stan reuses them) and every draw can
 * be replayed alone.
 */
import { runEvaluating, type Evaluating } from "../optimize/evaluating.ts";
import type { Objective } from "../optimize/objective.ts";
import { Purpose, streamNormals, type SeedKey } from "../random/streams.ts";
import { drawLowRankNormal, type LowRankNormal } from "./low-rank-normal.ts";

/** Draws on the unconstrained scale with both log densities: the approximation's (lp_approx__) and the model's (lp__). */
export interface ApproximateDraws {
  readonly x: Float64Array[];
  readonly lpApprox: Float64Array;
  readonly lp: Float64Array;
}

/** Where a path's draws come from: the seed's key, the path and its iterate. */
export interface DrawAddress {
  readonly key: SeedKey;
  readonly path: number;
  readonly iteration: number;
}

/** Draws `from` … `to` − 1 of the approximation at the address, each with the model's log density (−∞ where it is not finite). */
export function approximateDraws(obj: Objective, approx: LowRankNormal, at: DrawAddress, from: number, to: number): ApproximateDraws {
  return runEvaluating(approximateDrawsSteps(approx, at, from, to), obj);
}

/** approximateDraws as a computation (evaluating.ts): the draws' densities are one request, so that a batched objective evaluates them in one call. */
export function* approximateDrawsSteps(approx: LowRankNormal, at: DrawAddress, from: number, to: number): Evaluating<ApproximateDraws> {
  const count = Math.max(0, to - from);
  const x: Float64Array[] = [];
  const lpApprox = new Float64Array(count);
  const lp = new Float64Array(count);
  const u = new Float64Array(approx.dim);
  for (let k = 0; k < count; k++) {
    streamNormals(at.key, at.path, at.iteration, Purpose.Pathfinder, from + k, u);
    const xk = new Float64Array(approx.dim);
    lpApprox[k] = drawLowRankNormal(approx, u, xk);
    x.push(xk);
  }
  const { f } = count > 0 ? yield x : { f: new Float64Array(0) };
  for (let k = 0; k < count; k++) lp[k] = Number.isFinite(f[k]!) ? -f[k]! : -Infinity;
  return { x, lpApprox, lp };
}

/** The Monte Carlo ELBO, the mean of lp − lp_approx over the draws (−∞ when a draw's density is not finite, as Stan's). */
export function elboOf(d: ApproximateDraws): number {
  let t = 0;
  for (let k = 0; k < d.lp.length; k++) t += d.lp[k]! - d.lpApprox[k]!;
  const e = t / d.lp.length;
  return Number.isNaN(e) ? -Infinity : e;
}

/** Two sets of draws one after the other. */
export function concatDraws(a: ApproximateDraws, b: ApproximateDraws): ApproximateDraws {
  const cat = (p: Float64Array, q: Float64Array): Float64Array => {
    const out = new Float64Array(p.length + q.length);
    out.set(p);
    out.set(q, p.length);
    return out;
  };
  return { x: [...a.x, ...b.x], lpApprox: cat(a.lpApprox, b.lpApprox), lp: cat(a.lp, b.lp) };
}

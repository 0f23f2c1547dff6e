import type { Objective } from "../optimize/objective.ts";
import type { Rng } from "../random/rng.ts";
import { standardNormal, type GaussianFamily } from "./family.ts";

/** ADVI failed: the ELBO or its gradient could not be estimated, or no step size worked; the message names the fix. */
export class VariationalError extends Error {
  override name = "VariationalError";
}

/** Draws of the ELBO's gradient whose log density is not finite are drawn again, up to this many times the draws asked for (Stan's n_retries). */
const GRADIENT_RETRIES = 10;

/** Where the ELBO is taken: the target (−log p as an Objective), the family and the random source. */
export interface ElboContext {
  readonly objective: Objective;
  readonly family: GaussianFamily;
  readonly rng: Rng;
}

/**
 * The ELBO at `params`: the mean of log p over `draws` draws of the approximation plus its entropy,
 * as Stan's calc_ELBO: a draw whose log density is not finite is dropped and replaced, and `draws`
 * dropped draws is a VariationalError.
 */
export function estimateElbo(ctx: ElboContext, params: Float64Array, draws: number): number {
  const dim = ctx.objective.dim;
  const eta = new Float64Array(dim);
  const zeta = new Float64Array(dim);
  const grad = new Float64Array(dim);
  let sum = 0;
  let dropped = 0;
  for (let i = 0; i < draws; ) {
    standardNormal(ctx.rng, eta);
    ctx.family.transform(params, dim, eta, zeta);
    const logP = -ctx.objective.evaluate(zeta, grad);
    if (Number.isFinite(logP)) {
      sum += logP;
      i++;
    } else if (++dropped >= draws) {
      throw new VariationalError(`the log density was not finite at ${dropped} draws of the approximation while estimating the ELBO: the model may be severely ill-conditioned or misspecified, or the step size too large (give a smaller --eta)`);
    }
  }
  return sum / draws + ctx.family.entropy(params, dim);
}

/**
 * The ELBO's gradient at `params` by Monte Carlo over `draws` reparameterized draws (Stan's
 * calc_grad), into `out`: a draw whose log density or gradient is not finite is drawn again, up to
 * ten times `draws` such draws, then a VariationalError.
 */
export function elboGradient(ctx: ElboContext, params: Float64Array, draws: number, out: Float64Array): void {
  const dim = ctx.objective.dim;
  const eta = new Float64Array(dim);
  const zeta = new Float64Array(dim);
  const grad = new Float64Array(dim);
  out.fill(0);
  let dropped = 0;
  for (let i = 0; i < draws; ) {
    standardNormal(ctx.rng, eta);
    ctx.family.transform(params, dim, eta, zeta);
    const f = ctx.objective.evaluate(zeta, grad);
    if (Number.isFinite(f) && grad.every(Number.isFinite)) {
      for (let k = 0; k < dim; k++) grad[k] = -grad[k]!;
      ctx.family.accumulate(dim, eta, grad, out);
      i++;
    } else if (++dropped >= GRADIENT_RETRIES * draws) {
      throw new VariationalError(`the gradient of the log density was not finite at ${dropped} draws of the approximation: the model may be severely ill-conditioned or misspecified, or the step size too large (give a smaller --eta)`);
    }
  }
  ctx.family.finish(params, dim, out, draws);
}

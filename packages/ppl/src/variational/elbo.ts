import { loopedObjective, type BatchedObjective } from "../optimize/batched-objective.ts";
import { runLockstep, type Evaluating } from "../optimize/evaluating.ts";
import type { Objective } from "../optimize/objective.ts";
import type { Rng } from "../random/rng.ts";
import { standardNormal, type GaussianFamily } from "./family.ts";

/** ADVI failed: the ELBO or its gradient could not be estimated, or no step size worked; the message names the fix. */
export class VariationalError extends Error {
  override name = "VariationalError";
}

/** Draws of the ELBO's gradient whose log density is not finite are drawn again, up to this many times the draws asked for (Stan's n_retries). */
const GRADIENT_RETRIES = 10;

/** Where the ELBO is taken: the target (−log p as an Objective), the family and the random source; `batched` evaluates a round of draws in one call (the objective a draw at a time when absent). */
export interface ElboContext {
  readonly objective: Objective;
  readonly family: GaussianFamily;
  readonly rng: Rng;
  readonly batched?: BatchedObjective;
}

/**
 * The ELBO at `params`: the mean of log p over `draws` draws of the approximation plus its entropy,
 * as Stan's calc_ELBO: a draw whose log density is not finite is dropped and replaced, and `draws`
 * dropped draws is a VariationalError.
 */
export function estimateElbo(ctx: ElboContext, params: Float64Array, draws: number): number {
  return evaluateWith(ctx, estimateElboSteps(ctx, params, draws));
}

/** estimateElbo as a computation whose rounds of draws are requests (optimize/evaluating.ts), for estimates run in lockstep. */
export function* estimateElboSteps(ctx: ElboContext, params: Float64Array, draws: number): Evaluating<number> {
  let sum = 0;
  let dropped = 0;
  const accepted = yield* drawRounds(ctx, params, draws, draws, (_eta, f) => {
    if (Number.isFinite(-f)) {
      sum += -f;
      return true;
    }
    return false;
  }, () => ++dropped);
  if (accepted < draws) {
    throw new VariationalError(`the log density was not finite at ${dropped} draws of the approximation while estimating the ELBO: the model may be severely ill-conditioned or misspecified, or the step size too large (give a smaller --eta)`);
  }
  return sum / draws + ctx.family.entropy(params, dim(ctx));
}

/**
 * The ELBO's gradient at `params` by Monte Carlo over `draws` reparameterized draws (Stan's
 * calc_grad), into `out`: a draw whose log density or gradient is not finite is drawn again, up to
 * ten times `draws` such draws, then a VariationalError.
 */
export function elboGradient(ctx: ElboContext, params: Float64Array, draws: number, out: Float64Array): void {
  evaluateWith(ctx, elboGradientSteps(ctx, params, draws, out));
}

/** elboGradient as a computation whose rounds of draws are requests (optimize/evaluating.ts), for gradients run in lockstep. */
export function* elboGradientSteps(ctx: ElboContext, params: Float64Array, draws: number, out: Float64Array): Evaluating<void> {
  const d = dim(ctx);
  out.fill(0);
  let dropped = 0;
  const accepted = yield* drawRounds(ctx, params, draws, GRADIENT_RETRIES * draws, (eta, f, grad) => {
    if (!(Number.isFinite(f) && grad.every(Number.isFinite))) return false;
    for (let k = 0; k < d; k++) grad[k] = -grad[k]!;
    ctx.family.accumulate(d, eta, grad, out);
    return true;
  }, () => ++dropped);
  if (accepted < draws) {
    throw new VariationalError(`the gradient of the log density was not finite at ${dropped} draws of the approximation: the model may be severely ill-conditioned or misspecified, or the step size too large (give a smaller --eta)`);
  }
  ctx.family.finish(params, d, out, draws);
}

const dim = (ctx: ElboContext): number => ctx.objective.dim;

// Runs one computation, each of its rounds one call of the context's batched objective (the objective a draw at a time when absent).
function evaluateWith<T>(ctx: ElboContext, gen: Evaluating<T>): T {
  return runLockstep([gen], ctx.batched ?? loopedObjective(ctx.objective))[0]!;
}

/**
 * Draws of the approximation in rounds, each round's points one request: a round draws as many as
 * are still wanted (never more than the drops still allowed, so that the random stream is read
 * exactly as far as one draw at a time would read it), `take` keeps a draw or refuses it (a drop,
 * counted by `drop`), in the stream's order. Returns the draws kept.
 */
function* drawRounds(ctx: ElboContext, params: Float64Array, wanted: number, maxDropped: number,
  take: (eta: Float64Array, f: number, grad: Float64Array) => boolean, drop: () => number): Evaluating<number> {
  const d = dim(ctx);
  let kept = 0;
  let dropped = 0;
  while (kept < wanted && dropped < maxDropped) {
    const n = Math.min(wanted - kept, maxDropped - dropped);
    const etas: Float64Array[] = [];
    const zetas: Float64Array[] = [];
    for (let r = 0; r < n; r++) {
      const eta = new Float64Array(d);
      standardNormal(ctx.rng, eta);
      const zeta = new Float64Array(d);
      ctx.family.transform(params, d, eta, zeta);
      etas.push(eta);
      zetas.push(zeta);
    }
    const { f, g } = yield zetas;
    for (let r = 0; r < n; r++) {
      if (take(etas[r]!, f[r]!, g[r]!)) kept++;
      else dropped = drop();
    }
  }
  return kept;
}

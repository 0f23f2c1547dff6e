import { elboGradient, estimateElbo, VariationalError, type ElboContext } from "./elbo.ts";
import { ascend, stepSizeState } from "./step-size.ts";

/** The step sizes η the adaptation tries, largest first (Stan's). */
export const ETA_SEQUENCE: readonly number[] = [100, 10, 1, 0.1, 0.01];

/** The adaptation's settings: iterations per trial η, and the draws of the ELBO and its gradient. */
export interface EtaAdaptationOptions {
  readonly adaptIter: number;
  readonly gradSamples: number;
  readonly elboSamples: number;
}

/** The η chosen, and the ELBO each trial reached (−Infinity where it diverged). */
export interface EtaAdaptation {
  readonly eta: number;
  readonly trials: readonly { readonly eta: number; readonly elbo: number }[];
  readonly initialElbo: number;
}

/**
 * Stan's adapt_eta: from `init`, each η of ETA_SEQUENCE in turn runs `adaptIter` iterations of
 * stochastic gradient ascent (a gradient that cannot be estimated counts as zero) and ends with an
 * ELBO estimate (−Infinity when it cannot be estimated). The search stops at the first η whose
 * ELBO is below the previous one's while that one beat the initial ELBO, and takes the previous η;
 * the last η is taken if it beats the initial ELBO; else every η failed (a VariationalError).
 */
export function adaptEta(ctx: ElboContext, init: Float64Array, opts: EtaAdaptationOptions): EtaAdaptation {
  let initialElbo: number;
  try {
    initialElbo = estimateElbo(ctx, init, opts.elboSamples);
  } catch (e) {
    if (e instanceof VariationalError) throw new VariationalError(`cannot compute the ELBO of the initial approximation (${e.message}); the model may be severely ill-conditioned or misspecified: try other initial values (--init)`);
    throw e;
  }
  const trials: { eta: number; elbo: number }[] = [];
  let best = { eta: 0, elbo: -Infinity };
  for (let t = 0; t < ETA_SEQUENCE.length; t++) {
    const eta = ETA_SEQUENCE[t]!;
    const elbo = trial(ctx, init, eta, opts);
    trials.push({ eta, elbo });
    if (t > 0 && elbo < best.elbo && best.elbo > initialElbo) return { eta: best.eta, trials, initialElbo };
    if (t === ETA_SEQUENCE.length - 1) {
      if (elbo > initialElbo) return { eta, trials, initialElbo };
      throw new VariationalError(`every step size tried in the adaptation (eta ${ETA_SEQUENCE.join(", ")}) failed to improve the ELBO of the initial approximation (${initialElbo.toPrecision(6)}): the model may be severely ill-conditioned or misspecified; try other initial values (--init), or set --eta with --no-adapt-engaged`);
    }
    best = { eta, elbo };
  }
  throw new Error("unreachable: the adaptation returns at its last step size");
}

// adaptIter iterations of ascent at one η from `init`; the ELBO they reach, −Infinity if it diverged.
function trial(ctx: ElboContext, init: Float64Array, eta: number, opts: EtaAdaptationOptions): number {
  const params = Float64Array.from(init);
  const grad = new Float64Array(params.length);
  const steps = stepSizeState(params.length);
  for (let k = 0; k < opts.adaptIter; k++) {
    try {
      elboGradient(ctx, params, opts.gradSamples, grad);
    } catch (e) {
      if (!(e instanceof VariationalError)) throw e;
      grad.fill(0);
    }
    ascend(steps, eta, params, grad);
  }
  try {
    const elbo = estimateElbo(ctx, params, opts.elboSamples);
    // Stan compares doubles; a NaN ELBO (parameters gone infinite) counts as diverged.
    return Number.isNaN(elbo) ? -Infinity : elbo;
  } catch (e) {
    if (e instanceof VariationalError) return -Infinity;
    throw e;
  }
}

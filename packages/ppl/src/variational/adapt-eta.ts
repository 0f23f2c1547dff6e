import { loopedObjective, type BatchedObjective } from "../optimize/batched-objective.ts";
import { runLockstep, type Evaluating } from "../optimize/evaluating.ts";
import type { Rng } from "../random/rng.ts";
import { elboGradientSteps, estimateElbo, estimateElboSteps, VariationalError, type ElboContext } from "./elbo.ts";
import { NormalTape, type TapeReader } from "./normal-tape.ts";
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

/** The adaptation and the random source the ascent goes on with: where the trials run one after the other would have left it. */
export interface EtaSearch {
  readonly adaptation: EtaAdaptation;
  readonly rng: Rng;
}

/**
 * Stan's adapt_eta: from `init`, each η of ETA_SEQUENCE in turn runs `adaptIter` iterations of
 * stochastic gradient ascent (a gradient that cannot be estimated counts as zero) and ends with an
 * ELBO estimate (−Infinity when it cannot be estimated). The search stops at the first η whose
 * ELBO is below the previous one's while that one beat the initial ELBO, and takes the previous η;
 * the last η is taken if it beats the initial ELBO; else every η failed (a VariationalError).
 *
 * With a batched objective (ctx.batched: the GPU's batched gradient, say) the trials run in
 * lockstep, each round of all their draws one call (5 × gradSamples rows where one trial alone
 * makes gradSamples-row calls). Each trial reads the stretch of the random stream the trials run
 * one after the other would give it, predicted from the draws a trial makes when none is dropped;
 * a trial that dropped draws read further, so the trials after it run again from where it
 * stopped. Trials past the one the search stops at are computed and discarded. The result is
 * therefore the bits of the trials run in turn (on the CPU, where they are: ctx.batched absent).
 */
export function adaptEta(ctx: ElboContext, init: Float64Array, opts: EtaAdaptationOptions): EtaSearch {
  let initialElbo: number;
  try {
    initialElbo = estimateElbo(ctx, init, opts.elboSamples);
  } catch (e) {
    if (e instanceof VariationalError) throw new VariationalError(`cannot compute the ELBO of the initial approximation (${e.message}); the model may be severely ill-conditioned or misspecified: try other initial values (--init)`);
    throw e;
  }
  const record = searchRecord(initialElbo);
  if (ctx.batched === undefined) {
    for (let t = 0; ; t++) {
      const done = record(t, runLockstep([trialSteps(ctx, init, ETA_SEQUENCE[t]!, opts)], loopedObjective(ctx.objective))[0]!);
      if (done !== undefined) return { adaptation: done, rng: ctx.rng };
    }
  }
  return lockstepSearch(ctx, ctx.batched, init, opts, record);
}

// The trials from t on in lockstep, each reader at the offset the trials before it would leave
// the stream at without drops; a trial that read another amount sends the rest round again.
function lockstepSearch(ctx: ElboContext, batched: BatchedObjective, init: Float64Array, opts: EtaAdaptationOptions, record: TrialRecord): EtaSearch {
  const tape = new NormalTape(ctx.rng);
  const perTrial = (opts.adaptIter * opts.gradSamples + opts.elboSamples) * ctx.objective.dim;
  let offset = 0;
  for (let t = 0; ;) {
    const etas = ETA_SEQUENCE.slice(t);
    const readers: TapeReader[] = etas.map((_, k) => tape.reader(offset + k * perTrial));
    const elbos = runLockstep(etas.map((eta, k) => trialSteps({ ...ctx, rng: readers[k]! }, init, eta, opts)), batched);
    for (let k = 0; k < etas.length; k++) {
      offset += readers[k]!.read;
      const done = record(t + k, elbos[k]!);
      if (done !== undefined) return { adaptation: done, rng: tape.rest(offset) };
      if (readers[k]!.read !== perTrial) {
        t += k + 1;
        break;
      }
    }
  }
}

// Records trial t's ELBO; the adaptation once the search stops there (a VariationalError when the last η fails too).
type TrialRecord = (t: number, elbo: number) => EtaAdaptation | undefined;

function searchRecord(initialElbo: number): TrialRecord {
  const trials: { eta: number; elbo: number }[] = [];
  let best = { eta: 0, elbo: -Infinity };
  return (t, elbo) => {
    const eta = ETA_SEQUENCE[t]!;
    trials.push({ eta, elbo });
    if (t > 0 && elbo < best.elbo && best.elbo > initialElbo) return { eta: best.eta, trials, initialElbo };
    if (t === ETA_SEQUENCE.length - 1) {
      if (elbo > initialElbo) return { eta, trials, initialElbo };
      throw new VariationalError(`every step size tried in the adaptation (eta ${ETA_SEQUENCE.join(", ")}) failed to improve the ELBO of the initial approximation (${initialElbo.toPrecision(6)}): the model may be severely ill-conditioned or misspecified; try other initial values (--init), or set --eta with --no-adapt-engaged`);
    }
    best = { eta, elbo };
    return undefined;
  };
}

// adaptIter iterations of ascent at one η from `init`; the ELBO they reach, −Infinity if it diverged.
function* trialSteps(ctx: ElboContext, init: Float64Array, eta: number, opts: EtaAdaptationOptions): Evaluating<number> {
  const params = Float64Array.from(init);
  const grad = new Float64Array(params.length);
  const steps = stepSizeState(params.length);
  for (let k = 0; k < opts.adaptIter; k++) {
    try {
      yield* elboGradientSteps(ctx, params, opts.gradSamples, grad);
    } catch (e) {
      if (!(e instanceof VariationalError)) throw e;
      grad.fill(0);
    }
    ascend(steps, eta, params, grad);
  }
  try {
    const elbo = yield* estimateElboSteps(ctx, params, opts.elboSamples);
    // Stan compares doubles; a NaN ELBO (parameters gone infinite) counts as diverged.
    return Number.isNaN(elbo) ? -Infinity : elbo;
  } catch (e) {
    if (e instanceof VariationalError) return -Infinity;
    throw e;
  }
}

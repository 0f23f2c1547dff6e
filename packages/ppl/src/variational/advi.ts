import type { BatchedObjective } from "../optimize/batched-objective.ts";
import type { Objective } from "../optimize/objective.ts";
import type { Rng } from "../random/rng.ts";
import { adaptEta, type EtaAdaptation } from "./adapt-eta.ts";
import { elboGradient, estimateElbo, VariationalError, type ElboContext } from "./elbo.ts";
import { standardNormal, type FamilyName, type GaussianFamily } from "./family.ts";
import { fullrank } from "./fullrank.ts";
import { meanfield } from "./meanfield.ts";
import { checkRelativeChange, relativeChangeState, type RelativeChange } from "./relative-tolerance.ts";
import { ascend, lastStep, stepSizeState } from "./step-size.ts";

/** ADVI's settings, named and defaulted as CmdStan's variational method. */
export interface AdviOptions {
  readonly algorithm?: FamilyName;
  /** Most iterations of stochastic gradient ascent (10000). */
  readonly iter?: number;
  /** Draws per ELBO gradient (1). */
  readonly gradSamples?: number;
  /** Draws per ELBO estimate (100). */
  readonly elboSamples?: number;
  /** The step-size scale; chosen by the adaptation when adaptEngaged (1). */
  readonly eta?: number;
  readonly adaptEngaged?: boolean;
  /** Iterations per trial step size of the adaptation (50). */
  readonly adaptIter?: number;
  /** Relative ELBO tolerance of the convergence test (0.01). */
  readonly tolRelObj?: number;
  /** Iterations between ELBO evaluations (100). */
  readonly evalElbo?: number;
}

/** CmdStan's defaults of AdviOptions. */
export const ADVI_DEFAULTS = {
  algorithm: "meanfield", iter: 10000, gradSamples: 1, elboSamples: 100, eta: 1, adaptEngaged: true, adaptIter: 50, tolRelObj: 0.01, evalElbo: 100,
} as const satisfies Required<AdviOptions>;

/** One ELBO evaluation of the ascent, at `iteration`, with the convergence test's view of it. */
export interface ElboCheck extends RelativeChange {
  readonly iteration: number;
}

/** The fitted approximation and how the run went. */
export interface AdviResult {
  readonly family: GaussianFamily;
  readonly dim: number;
  /** The family's parameters (μ then ω, or μ then L's lower triangle). */
  readonly params: Float64Array;
  /** The step-size scale used, adapted or given. */
  readonly eta: number;
  readonly adaptation?: EtaAdaptation;
  readonly iterations: number;
  /** True when the mean or median relative ELBO change fell below tol_rel_obj; false when --iter was reached first. */
  readonly converged: boolean;
  readonly message: string;
  readonly checks: readonly ElboCheck[];
  /** The last iteration's step per variational parameter (see lastStep). */
  readonly lastStep: Float64Array;
  /** Stan's notes: the ELBO was larger at an earlier check than at convergence (by over 5%), or may be diverging. */
  readonly notes: readonly string[];
}

/** The variational family of a name. */
export function familyOf(name: FamilyName): GaussianFamily {
  return name === "fullrank" ? fullrank : meanfield;
}

/**
 * ADVI as Stan's services/experimental/advi: a Gaussian (meanfield or fullrank) on the
 * unconstrained space, started at x0 with identity covariance, fitted by stochastic gradient
 * ascent on the ELBO with reparameterized Monte Carlo gradients and the adaptive step-size
 * sequence, η adapted first (unless adaptEngaged is false), stopped by the relative ELBO test or
 * after `iter` iterations. `objective` is −log p with the log-Jacobian (the density NUTS samples).
 * Throws a VariationalError when the ELBO or its gradient cannot be estimated. Each gradient's
 * gradSamples draws and each estimate's elboSamples draws are one call of `batched` (the GPU's
 * batched gradient, say), or of `objective` a draw at a time when it is absent; with `batched` the
 * adaptation's trials run in lockstep (adapt-eta.ts), the same bits as in turn.
 */
export function advi(objective: Objective, x0: Float64Array, rng: Rng, options: AdviOptions = {}, batched?: BatchedObjective): AdviResult {
  const o = { ...ADVI_DEFAULTS, ...options };
  const family = familyOf(o.algorithm);
  const ctx: ElboContext = { objective, family, rng, ...(batched !== undefined ? { batched } : {}) };
  const init = family.init(x0);
  const search = o.adaptEngaged ? adaptEta(ctx, init, o) : undefined;
  const adaptation = search?.adaptation;
  // The ascent reads the random stream on from where the adaptation's trials (in turn) left it.
  const ascent: ElboContext = search !== undefined ? { ...ctx, rng: search.rng } : ctx;
  const eta = adaptation?.eta ?? o.eta;
  if (!(eta > 0)) throw new VariationalError(`eta must be positive, not ${eta}`);
  const params = Float64Array.from(init);
  const grad = new Float64Array(params.length);
  const steps = stepSizeState(params.length);
  const test = relativeChangeState(o.iter, o.evalElbo);
  const checks: ElboCheck[] = [];
  const notes: string[] = [];
  let best = -Infinity;
  for (let k = 1; k <= o.iter; k++) {
    elboGradient(ascent, params, o.gradSamples, grad);
    ascend(steps, eta, params, grad);
    if (k % o.evalElbo !== 0) continue;
    const check = { iteration: k, ...checkRelativeChange(test, estimateElbo(ascent, params, o.elboSamples), o.tolRelObj) };
    checks.push(check);
    best = Math.max(best, check.elbo);
    if (k > 10 * o.evalElbo && (check.median > 0.5 || check.mean > 0.5)) notes.push(`iteration ${k}: the relative ELBO change is large (mean ${check.mean.toPrecision(3)}, median ${check.median.toPrecision(3)}): the ascent may be diverging; inspect the ELBO`);
    if (check.meanConverged || check.medianConverged) {
      if (Math.abs((best - check.elbo) / check.elbo) > 0.05) notes.push("the ELBO at an earlier check was larger than at convergence: the approximation may not have reached a good optimum");
      const which = check.meanConverged ? `mean relative ELBO change ${check.mean.toPrecision(3)}` : `median relative ELBO change ${check.median.toPrecision(3)}`;
      return { family, dim: objective.dim, params, eta, ...(adaptation ? { adaptation } : {}), iterations: k, converged: true, message: `converged: the ${which} is below --tol-rel-obj ${o.tolRelObj}`, checks, lastStep: lastStep(steps, eta), notes };
    }
  }
  const last = checks[checks.length - 1];
  const where = last ? `; the last relative ELBO change: mean ${last.mean.toPrecision(3)}, median ${last.median.toPrecision(3)}, against --tol-rel-obj ${o.tolRelObj}` : `; the ELBO was not checked (--iter below eval_elbo ${o.evalElbo})`;
  return { family, dim: objective.dim, params, eta, ...(adaptation ? { adaptation } : {}), iterations: o.iter, converged: false, message: `did not converge: the maximum number of iterations (--iter ${o.iter}) was reached${where}`, checks, lastStep: lastStep(steps, eta), notes };
}

/** One draw from the fitted approximation: the unconstrained point and log_g (−½ ηᵀη, as Stan's log_g__). */
export function approximationDraw(result: AdviResult, rng: Rng): { readonly x: Float64Array; readonly logG: number } {
  const eta = new Float64Array(result.dim);
  const logG = standardNormal(rng, eta);
  const x = new Float64Array(result.dim);
  result.family.transform(result.params, result.dim, eta, x);
  return { x, logG };
}

/** The mean of the fitted approximation (the first row of variational.csv). */
export function approximationMean(result: AdviResult): Float64Array {
  return result.family.mean(result.params, result.dim);
}

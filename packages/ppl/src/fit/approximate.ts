/**
 * Approximations of a model's posterior from TypeScript, as CmdStan's laplace, pathfinder and
 * variational methods compute them: `await approximate(model, data, { method: "pathfinder" })`
 * resolves to an ApproximateFit of named, constrained draws. `ppl laplace`, `ppl pathfinder` and
 * `ppl variational` are built on approximateTarget below, so the same seed gives the same draws
 * through the CLI and through this call.
 */
import { dataLayoutKeys, layoutNodes } from "../io/data-layout.ts";
import { formatFourDigits as short } from "../io/number-format.ts";
import { compileModel, type CompiledModel } from "../model/compile.ts";
import type { DataSpec, DataValues } from "../model/data-spec.ts";
import type { Model } from "../model/model.ts";
import { pathfinder, PathfinderError, type PathfinderResult } from "../pathfinder/multi-path.ts";
import { philoxRng } from "../random/rng.ts";
import { advi, approximationDraw, approximationMean, type AdviResult } from "../variational/advi.ts";
import { VariationalError } from "../variational/elbo.ts";
import { ETA_SEQUENCE } from "../variational/adapt-eta.ts";
import { ApproximateFit, type ApproximationMethod } from "./approximate-fit.ts";
import { approximationConfig, runConfig } from "./approximation-config.ts";
import {
  approximationTarget, type ApproximateCommonOptions, type ApproximateOptions, type ApproximationInputs, type ApproximationTarget, type MethodDraws,
  type PathfinderModelOptions, type VariationalModelOptions,
} from "./approximate-options.ts";
import { FitError } from "./fit-error.ts";
import { generatedColumnsOf } from "./generated-row.ts";
import { laplaceFit, logDensities } from "./laplace-fit.ts";
import { approximationBackend } from "./approximation-placement.ts";
import { loopedObjective } from "../optimize/batched-objective.ts";
import { randomInitialPoint } from "./initial-point.ts";

/** The Philox streams of ADVI's seed: initial points take 0 … 99 (as optimize's), the ascent 100, the output draws 101. */
const ASCENT_STREAM = 100;
const DRAWS_STREAM = 101;

/** Approximates the posterior of `model` given `data` by `options.method` and resolves to an {@link ApproximateFit} of named, constrained draws. */
export function approximate<S extends DataSpec>(model: Model<S>, data: DataValues<S> | Readonly<Record<string, unknown>>, options: ApproximateOptions): Promise<ApproximateFit> {
  const source = { model: model as Model, data: data as Readonly<Record<string, unknown>> };
  return Promise.resolve().then(() => approximateCompiled(compileModel(model, data, { allowExtraKeys: options.allowExtraKeys ?? false }), options, { source }));
}

/** Approximates a compiled model's posterior, its batched evaluations where options.backend places them (the CPU by default). */
export async function approximateCompiled(compiled: CompiledModel, options: ApproximateOptions, inputs: ApproximationInputs = {}): Promise<ApproximateFit> {
  const jacobian = options.method === "laplace" ? (options.jacobian ?? true) : true;
  const target = await approximationTarget(compiled, jacobian);
  const backend = await approximationBackend(compiled, jacobian, roundSizes(options, compiled.dim), options);
  try {
    if (backend.batched === undefined) return approximateTarget(target, options, inputs);
    return approximateTarget({ ...target, batched: backend.batched }, options, { ...inputs, backendNote: backend.note });
  } finally {
    backend.dispose();
  }
}

/** The sizes of a method's rounds of batched evaluations (approximation-placement.ts): what a GPU's batched gradient is built for. */
export function roundSizes(o: ApproximateOptions, dim: number): number[] {
  if (o.method === "pathfinder") {
    const paths = o.numPaths ?? 4;
    return [paths, paths * (o.numElboDraws ?? 25)];
  }
  // ADVI: its gradients' and ELBO estimates' draws, and the step-size trials' gradients in lockstep.
  if (o.method === "variational") return [o.gradSamples ?? 1, o.elboSamples ?? 100, ...(o.adaptEngaged ?? true ? [ETA_SEQUENCE.length * (o.gradSamples ?? 1)] : [])];
  // Laplace: the Hessian's 2·dim gradients, and the mode search's one point a call when it has to find the mode.
  return o.mode === undefined ? [1, 2 * dim] : [2 * dim];
}

/** Approximates the posterior of a target built with the log-Jacobian (Laplace: as options.jacobian asks); what the CLI's commands run. */
export function approximateTarget(target: ApproximationTarget, options: ApproximateOptions, inputs: ApproximationInputs = {}): ApproximateFit {
  const compiled = target.compiled;
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  const t0 = performance.now();
  const made = options.method === "laplace" ? laplaceFit(target, options, seed, () => startOf(target, options, seed))
    : options.method === "pathfinder" ? pathfinderDraws(target, options, seed)
    : variationalDraws(target, options, seed);
  const columns = generatedColumnsOf(compiled, seed);
  const rows = made.points.map((x, d) => columns.row(d + made.firstDraw, target.generated(x)));
  return new ApproximateFit({
    method: options.method, model: compiled.name, compiled, ...(inputs.source !== undefined ? { source: inputs.source } : {}), seed, names: columns.names, shapes: columns.shapes, rows,
    lead: made.lead, ...(made.first !== undefined ? { firstRow: Float64Array.from([...made.leadFirst!, ...columns.row(0, target.generated(made.first))]) } : {}),
    config: [
      ...approximationConfig(compiled.name, { ...options, ...(inputs.modeFile !== undefined ? { modeFile: inputs.modeFile } : {}) }),
      ...runConfig(inputs.dataFile, inputs.init ?? options.init ?? 2, seed, inputs.seedGiven ?? options.seed !== undefined),
      // The observed terms and integer data, so that `ppl export` of the file sorts observed_data from constant_data.
      ...(inputs.source !== undefined ? layoutNodes(dataLayoutKeys(inputs.source.model, compiled)) : []),
    ],
    notes: inputs.backendNote !== undefined ? [...made.notes, inputs.backendNote] : made.notes, ...(made.headComments !== undefined ? { headComments: made.headComments } : {}), converged: made.converged, ...(made.paretoK !== undefined ? { paretoK: made.paretoK } : {}),
    ...(made.ascent !== undefined ? { ascent: made.ascent } : {}), seconds: (performance.now() - t0) / 1000,
  });
}

// The initial point: given, or random (a FitError when the density is not finite at 100 of them).
function startOf(target: ApproximationTarget, options: ApproximateCommonOptions, seed: number): Float64Array {
  const given = options.initialPoints?.[0];
  if (given !== undefined) return given;
  const radius = options.init ?? 2;
  const q = randomInitialPoint(target.objective, radius, seed);
  if (q === null) {
    throw new FitError(`model '${target.compiled.name}': the log density is not finite at 100 random initial points uniform in (−${radius}, ${radius}); give initial values, or a smaller init radius`);
  }
  return q;
}

function pathfinderDraws(target: ApproximationTarget, o: PathfinderModelOptions, seed: number): MethodDraws {
  let r: PathfinderResult;
  try {
    r = pathfinder(target.objective, {
      seed, numPaths: o.numPaths ?? 4, numDraws: o.draws ?? 1000, psisResample: o.psisResample ?? true, numElboDraws: o.numElboDraws ?? 25,
      historySize: o.historySize ?? 5, iter: o.maxLbfgsIters ?? 1000,
      ...(o.init !== undefined ? { initRadius: o.init } : {}),
      ...(o.initialPoints !== undefined ? { init: o.initialPoints } : {}),
    }, target.batched);
  } catch (e) {
    if (e instanceof PathfinderError) throw new FitError(`pathfinder: ${e.message}`, { cause: e });
    throw e;
  }
  return {
    points: r.draws.x, firstDraw: 0, lead: new Map([["lp_approx__", r.draws.lpApprox], ["lp__", r.draws.lp]]),
    notes: pathfinderNotes(r), converged: true, paretoK: r.paretoK,
  };
}

/** Each path's outcome and the Pareto k of the pooled draws, as `ppl pathfinder` prints them. */
export function pathfinderNotes(r: PathfinderResult): string[] {
  const paths = r.paths.map((p) => p.draws === null
    ? `Path ${p.path + 1}: failed: ${p.message}`
    : `Path ${p.path + 1}: best iteration ${p.bestIteration} of ${p.iterations}, ELBO ${short(p.elbo)}, ${p.evaluations} evaluations (${p.message})`);
  const k = Number.isNaN(r.paretoK) ? "none (every importance weight is the same: the approximation is the density up to its constant)"
    : Number.isFinite(r.paretoK) ? r.paretoK.toFixed(2) : "Inf (the tail could not be fitted)";
  const what = r.resampled ? "resampled by Pareto-smoothed importance weights" : "pooled, not resampled (--no-psis-resample)";
  return [...paths, `Pareto k ${k}: the draws are ${what}`];
}

function variationalDraws(target: ApproximationTarget, o: VariationalModelOptions, seed: number): MethodDraws {
  const x0 = startOf(target, o, seed);
  let fit: AdviResult;
  try {
    fit = advi(target.objective, x0, philoxRng(seed, ASCENT_STREAM), o, target.batched);
  } catch (e) {
    if (e instanceof VariationalError) throw new FitError(`variational: ${e.message}`, { cause: e });
    throw e;
  }
  const n = o.draws ?? 1000;
  const rng = philoxRng(seed, DRAWS_STREAM);
  const points: Float64Array[] = [];
  const logG = new Float64Array(n);
  for (let d = 0; d < n; d++) {
    const draw = approximationDraw(fit, rng);
    points.push(draw.x);
    logG[d] = draw.logG;
  }
  const logP = logDensities(target.batched ?? loopedObjective(target.objective), points);
  const comments = fit.adaptation ? ["Stepsize adaptation complete.", `eta = ${fit.eta}`] : [];
  return {
    points, firstDraw: 1, lead: new Map([["lp__", new Float64Array(n)], ["log_p__", logP], ["log_g__", logG]]),
    first: approximationMean(fit), leadFirst: [0, 0, 0],
    headComments: comments, notes: [`ADVI ${fit.message}`, `Iterations: ${fit.iterations}`], converged: fit.converged, ascent: fit,
  };
}

export type { ApproximationMethod };

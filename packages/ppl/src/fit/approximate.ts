/**
 * Approximations of a model's posterior from TypeScript, as CmdStan's laplace, pathfinder and
 * variational methods compute them: `await approximate(model, data, { method: "pathfinder" })`
 * resolves to an ApproximateFit of named, constrained draws. `ppl laplace`, `ppl pathfinder` and
 * `ppl variational` are built on approximateCompiled below, so the same seed gives the same draws
 * through the CLI and through this call.
 */
import { compileModel, type CompiledModel } from "../model/compile.ts";
import type { DataSpec, DataValues } from "../model/data-spec.ts";
import type { Model } from "../model/model.ts";
import { objectiveOf, type Objective } from "../optimize/objective.ts";
import { optimizationDensity } from "../optimize/model-objective.ts";
import { pathfinder, PathfinderError, type PathfinderResult } from "../pathfinder/multi-path.ts";
import { philoxRng } from "../random/rng.ts";
import { advi, approximationDraw, approximationMean, type AdviOptions, type AdviResult } from "../variational/advi.ts";
import { VariationalError } from "../variational/elbo.ts";
import { ApproximateFit, type ApproximationMethod } from "./approximate-fit.ts";
import { approximationConfig, runConfig, type PathfinderSettings } from "./approximation-config.ts";
import { FitError } from "./fit-error.ts";
import { generatedColumnsOf } from "./generated-row.ts";
import { laplaceFit } from "./laplace-fit.ts";
import { randomInitialPoint } from "./initial-point.ts";

/** What every approximation takes. */
export interface ApproximateCommonOptions {
  /** The run's seed (random when none is given); the same seed gives the same draws. */
  readonly seed?: number;
  /** Draws to make (1000). */
  readonly draws?: number;
  /** Radius r of the random initial points, uniform in (−r, r) on the unconstrained scale (2). */
  readonly init?: number;
  /** Initial points on the unconstrained scale (one, or one per Pathfinder path), in place of random ones. */
  readonly initialPoints?: readonly Float64Array[];
  /** Accept data keys the model does not declare (ignored, as Stan does) instead of a DataError (false). */
  readonly allowExtraKeys?: boolean;
}

/** The normal approximation at the mode (CmdStan's laplace). */
export interface LaplaceOptions extends ApproximateCommonOptions {
  readonly method: "laplace";
  /** With the log-Jacobian of the constraints (true: draws approximate the posterior); false approximates the constrained density at its mode. */
  readonly jacobian?: boolean;
  /** The mode on the unconstrained scale, if known (else found by L-BFGS, then Newton). */
  readonly mode?: Float64Array;
}

/** Multi-path Pathfinder (CmdStan's pathfinder). */
export interface PathfinderModelOptions extends ApproximateCommonOptions, Partial<PathfinderSettings> {
  readonly method: "pathfinder";
}

/** ADVI (CmdStan's variational). */
export interface VariationalModelOptions extends ApproximateCommonOptions, AdviOptions {
  readonly method: "variational";
}

/** Options of approximate(model, data, options): the method and its settings. */
export type ApproximateOptions = LaplaceOptions | PathfinderModelOptions | VariationalModelOptions;

/** The Philox streams of ADVI's seed: initial points take 0 … 99 (as optimize's), the ascent 100, the output draws 101. */
const ASCENT_STREAM = 100;
const DRAWS_STREAM = 101;

/** Approximates the posterior of `model` given `data` by `options.method` and resolves to an {@link ApproximateFit} of named, constrained draws. */
export function approximate<S extends DataSpec>(model: Model<S>, data: DataValues<S> | Readonly<Record<string, unknown>>, options: ApproximateOptions): Promise<ApproximateFit> {
  return Promise.resolve().then(() => approximateCompiled(compileModel(model, data, { allowExtraKeys: options.allowExtraKeys ?? false }), options));
}

/** The model's objective (−log density, with or without the log-Jacobian) and its constrained values at a point. */
export interface ApproximationTarget {
  readonly compiled: CompiledModel;
  readonly objective: Objective;
  /** Constrained parameters and deterministics at an unconstrained point. */
  generated(q: Float64Array): Float64Array;
}

/** The objective of a compiled model, with the log-Jacobian of its constraints or without. */
export async function approximationTarget(compiled: CompiledModel, jacobian: boolean): Promise<ApproximationTarget> {
  const density = await optimizationDensity(compiled, jacobian);
  return { compiled, objective: objectiveOf(density), generated: (q) => density.generated(q) };
}

/** What the CSV file's settings record of where a run's inputs came from (the CLI's files). */
export interface ApproximationInputs {
  readonly dataFile?: string;
  /** The init radius, or the init file's path. */
  readonly init?: number | string;
  readonly modeFile?: string;
  /** Whether the seed was the user's (else drawn at random): the file marks it default or not. */
  readonly seedGiven?: boolean;
}

/** Approximates a compiled model's posterior. */
export async function approximateCompiled(compiled: CompiledModel, options: ApproximateOptions, inputs: ApproximationInputs = {}): Promise<ApproximateFit> {
  const target = await approximationTarget(compiled, options.method === "laplace" ? (options.jacobian ?? true) : true);
  return approximateTarget(target, options, inputs);
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
    method: options.method, model: compiled.name, seed, names: columns.names, shapes: columns.shapes, rows,
    lead: made.lead, ...(made.first !== undefined ? { firstRow: Float64Array.from([...made.leadFirst!, ...columns.row(0, target.generated(made.first))]) } : {}),
    config: [
      ...approximationConfig(compiled.name, { ...options, ...(inputs.modeFile !== undefined ? { modeFile: inputs.modeFile } : {}) }),
      ...runConfig(inputs.dataFile, inputs.init ?? options.init ?? 2, seed, inputs.seedGiven ?? options.seed !== undefined),
    ],
    notes: made.notes, ...(made.headComments !== undefined ? { headComments: made.headComments } : {}), converged: made.converged, ...(made.paretoK !== undefined ? { paretoK: made.paretoK } : {}),
    ...(made.ascent !== undefined ? { ascent: made.ascent } : {}), seconds: (performance.now() - t0) / 1000,
  });
}

/** A method's draws on the unconstrained scale and its leading columns, before the constrained values are computed. */
export interface MethodDraws {
  readonly points: readonly Float64Array[];
  /** The generated streams' draw index of points[0] (ADVI's 1: its mean row takes 0). */
  readonly firstDraw: number;
  readonly lead: ReadonlyMap<string, Float64Array>;
  /** A point written before the draws (ADVI's mean) and its leading values. */
  readonly first?: Float64Array;
  readonly leadFirst?: readonly number[];
  readonly notes: readonly string[];
  readonly headComments?: readonly string[];
  readonly converged: boolean;
  readonly paretoK?: number;
  readonly ascent?: AdviResult;
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
    });
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
    fit = advi(target.objective, x0, philoxRng(seed, ASCENT_STREAM), o);
  } catch (e) {
    if (e instanceof VariationalError) throw new FitError(`variational: ${e.message}`, { cause: e });
    throw e;
  }
  const n = o.draws ?? 1000;
  const rng = philoxRng(seed, DRAWS_STREAM);
  const grad = new Float64Array(target.compiled.dim);
  const points: Float64Array[] = [];
  const logP = new Float64Array(n);
  const logG = new Float64Array(n);
  for (let d = 0; d < n; d++) {
    const draw = approximationDraw(fit, rng);
    points.push(draw.x);
    logP[d] = -target.objective.evaluate(draw.x, grad);
    logG[d] = draw.logG;
  }
  const comments = fit.adaptation ? ["Stepsize adaptation complete.", `eta = ${fit.eta}`] : [];
  return {
    points, firstDraw: 1, lead: new Map([["lp__", new Float64Array(n)], ["log_p__", logP], ["log_g__", logG]]),
    first: approximationMean(fit), leadFirst: [0, 0, 0],
    headComments: comments, notes: [`ADVI ${fit.message}`, `Iterations: ${fit.iterations}`], converged: fit.converged, ascent: fit,
  };
}

// Four significant digits, as a summary table shows them.
function short(v: number): string {
  return v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) ? String(Number(v.toPrecision(4))) : v.toExponential(3);
}

export type { ApproximationMethod };

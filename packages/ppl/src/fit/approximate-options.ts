/**
 * What an approximation of a model's posterior takes (approximate's options, by method) and what a
 * method hands back before its draws become named, constrained values: the model's objective, the
 * method's unconstrained draws and leading columns, and the record of the run's inputs.
 */
import type { CompiledModel } from "../model/compile.ts";
import type { Model } from "../model/model.ts";
import type { BatchedObjective } from "../optimize/batched-objective.ts";
import type { Objective } from "../optimize/objective.ts";
import type { ApproximationBackendOptions } from "./approximation-placement.ts";
import { objectiveOf } from "../optimize/objective.ts";
import { optimizationDensity } from "../optimize/model-objective.ts";
import type { AdviOptions, AdviResult } from "../variational/advi.ts";
import type { PathfinderSettings } from "./approximation-config.ts";

/** What every approximation takes (where its batched evaluations run included: backend, device, dtype). */
export interface ApproximateCommonOptions extends ApproximationBackendOptions {
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

/** The model's objective (−log density, with or without the log-Jacobian) and its constrained values at a point. */
export interface ApproximationTarget {
  readonly compiled: CompiledModel;
  readonly objective: Objective;
  /** The objective at many points in one call (the GPU's batched gradient); the methods loop over `objective` when absent. */
  readonly batched?: BatchedObjective;
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
  /** The model and its data as given (what fit.toInferenceData lays out as observed_data and constant_data). */
  readonly source?: ApproximationSource;
  /** The init radius, or the init file's path. */
  readonly init?: number | string;
  readonly modeFile?: string;
  /** Whether the seed was the user's (else drawn at random): the file marks it default or not. */
  readonly seedGiven?: boolean;
  /** Where the batched evaluations ran, written after the method's notes (a run on a GPU says so). */
  readonly backendNote?: string;
}

/** The model and data an approximation was made from. */
export interface ApproximationSource {
  readonly model: Model;
  readonly data: Readonly<Record<string, unknown>>;
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


/**
 * The posterior mode of a model from TypeScript, as CmdStan's optimize computes it: by default
 * the mode of the constrained density without the log-Jacobian of the constraints (`jacobian:
 * true`: the MAP on the unconstrained scale), from a random initial point, by L-BFGS (or BFGS,
 * Newton). `ppl optimize` is built on optimizeTarget, so a seed gives the same mode either way.
 */
import { dataLayoutKeys, layoutNodes } from "../io/data-layout.ts";
import { compileModel } from "../model/compile.ts";
import type { DataSpec, DataValues } from "../model/data-spec.ts";
import type { Model } from "../model/model.ts";
import { minimize, OptimizationError, type OptimizeOptions } from "../optimize/run-optimizer.ts";
import { ApproximateFit } from "./approximate-fit.ts";
import { approximationTarget, type ApproximationInputs, type ApproximationTarget } from "./approximate-options.ts";
import { approximationConfig, runConfig } from "./approximation-config.ts";
import { FitError } from "./fit-error.ts";
import { generatedColumnsOf } from "./generated-row.ts";
import { randomInitialPoint } from "./initial-point.ts";
import { ModeFit } from "./mode-fit.ts";

/** Options of optimize(model, data, options): the optimizer's settings (CmdStan's defaults) and where it starts. */
export interface OptimizeModelOptions extends OptimizeOptions {
  /** With the log-Jacobian of the constraints: the MAP on the unconstrained scale (false: the constrained density's mode, as CmdStan). */
  readonly jacobian?: boolean;
  /** The run's seed (random when none is given): it picks the initial point. */
  readonly seed?: number;
  /** Radius r of the random initial point, uniform in (−r, r) on the unconstrained scale (2). */
  readonly init?: number;
  /** The initial point on the unconstrained scale, in place of a random one. */
  readonly initialPoint?: Float64Array;
  /** Accept data keys the model does not declare (ignored, as Stan does) instead of a DataError (false). */
  readonly allowExtraKeys?: boolean;
}

/** Finds the mode of `model` given `data` and resolves to a {@link ModeFit} of named, constrained values. */
export async function optimize<S extends DataSpec>(model: Model<S>, data: DataValues<S> | Readonly<Record<string, unknown>>, options: OptimizeModelOptions = {}): Promise<ModeFit> {
  const compiled = compileModel(model, data, { allowExtraKeys: options.allowExtraKeys ?? false });
  const source = { model: model as Model, data: data as Readonly<Record<string, unknown>> };
  return optimizeTarget(await approximationTarget(compiled, options.jacobian ?? false), options, { source });
}

/** Finds the mode of a target built with or without the log-Jacobian as options.jacobian says (what `ppl optimize` runs). */
export function optimizeTarget(target: ApproximationTarget, options: OptimizeModelOptions, inputs: ApproximationInputs = {}): ModeFit {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  const radius = options.init ?? 2;
  const start = options.initialPoint ?? randomInitialPoint(target.objective, radius, seed);
  if (start === null) {
    throw new FitError(`model '${target.compiled.name}': the log density is not finite at 100 random initial points uniform in (−${radius}, ${radius}); give an initial point, or a smaller init radius`);
  }
  const t0 = performance.now();
  let result;
  try {
    result = minimize(target.objective, start, options);
  } catch (e) {
    if (e instanceof OptimizationError) throw new FitError(`optimize: ${e.message}`, { cause: e });
    throw e;
  }
  const columns = generatedColumnsOf(target.compiled, seed);
  const file = new ApproximateFit({
    method: "optimize", model: target.compiled.name, seed, names: columns.names, shapes: columns.shapes,
    rows: [columns.row(0, target.generated(result.x))], lead: new Map([["lp__", Float64Array.of(-result.f)]]),
    config: [...approximationConfig(target.compiled.name, { ...options, method: "optimize" }), ...runConfig(inputs.dataFile, inputs.init ?? radius, seed, inputs.seedGiven ?? options.seed !== undefined),
      ...(inputs.source !== undefined ? layoutNodes(dataLayoutKeys(inputs.source.model, target.compiled)) : [])],
    notes: [
      result.converged ? `Optimization terminated normally: ${result.message}` : `Optimization did not converge: ${result.message}`,
      `Iterations: ${result.iterations}, gradient evaluations: ${result.evaluations}`,
    ],
    converged: result.converged, seconds: (performance.now() - t0) / 1000,
  });
  return new ModeFit(file, { lp: -result.f, converged: result.converged, message: result.message, iterations: result.iterations, evaluations: result.evaluations });
}

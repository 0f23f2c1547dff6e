/**
 * `sample` of the package's entry: given a model and its data it samples the model and resolves
 * to a Fit (sample-model.ts); given a batched log density it is the sampler's own synchronous call
 * (sampler/sample.ts), which tests and the CLI build on.
 */
import type { DataSpec, DataValues } from "../model/data-spec.ts";
import { isModel, type Model } from "../model/model.ts";
import type { BatchedDensity } from "../sampler/density.ts";
import type { SampleOptions } from "../sampler/options.ts";
import type { SampleResult } from "../sampler/result.ts";
import { sample as sampleDensity } from "../sampler/sample.ts";
import type { Fit } from "./fit.ts";
import { FitError } from "./fit-error.ts";
import { sampleModel, type FitOptions } from "./sample-model.ts";

/**
 * Samples a model given its data (NUTS on the CPU, Stan's defaults) and resolves to a {@link Fit}:
 * `const fit = await sample(model, data, { seed: 1 }); fit.summary(); fit.draws("mu")`.
 */
export function sample<S extends DataSpec>(model: Model<S>, data: DataValues<S> | Readonly<Record<string, unknown>>, options?: FitOptions): Promise<Fit>;
/** Samples C chains of a batched log density together, synchronously (the sampler's own call). */
export function sample(density: BatchedDensity, options?: SampleOptions): SampleResult;
export function sample(first: Model | BatchedDensity, second?: unknown, third?: FitOptions): Promise<Fit> | SampleResult {
  if (isModel(first)) {
    if (second === undefined || second === null || typeof second !== "object") {
      throw new FitError(`sample(model, data): model '${first.name}' needs its data as an object ({} for a model without data)`);
    }
    return sampleModel(first, second as Readonly<Record<string, unknown>>, third);
  }
  return sampleDensity(first as BatchedDensity, second as SampleOptions | undefined);
}

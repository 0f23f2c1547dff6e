/**
 * Sampling a model with its data from TypeScript: checks the data, compiles the log density for
 * the CPU, runs the sampler (NUTS by default) and keeps every kept draw on the constrained scale
 * by name, so that a script reads `fit.draws("mu")` as the CSV files of `ppl sample` hold it.
 */
import { SAMPLER_COLUMNS, samplerValues } from "../io/sampler-columns.ts";
import { compileModel } from "../model/compile.ts";
import type { DataSpec, DataValues } from "../model/data-spec.ts";
import type { Model } from "../model/model.ts";
import type { DrawInfo } from "../sampler/result.ts";
import { sampleAsync } from "../sampler/sample.ts";
import type { SettingsOptions } from "../sampler/settings.ts";
import { Fit } from "./fit.ts";
import { generatedColumns, type GeneratedColumnOptions } from "./fit-generated.ts";
import { openFitRun, type FitPlacementOptions } from "./fit-placement.ts";

/** Options of sample(model, data, options): the run's settings (Stan's defaults) and where it runs. */
export interface FitOptions extends GeneratedColumnOptions, SettingsOptions, FitPlacementOptions {
  /** Threads to spread the chains over (1); the draws are the same bits with any number. */
  readonly threads?: number;
  /** Stops the run between iterations; the Fit then holds the draws made so far (fit.aborted). */
  readonly signal?: AbortSignal;
  /** Called for every chain after every iteration (warmup too), e.g. for a progress bar. */
  readonly onDraw?: (draw: DrawInfo) => void;
  /** Accept data keys the model does not declare (ignored, as Stan does) instead of a DataError (false). */
  readonly allowExtraKeys?: boolean;
}

/** Samples `model` given `data` (on the CPU, or where options.backend places it) and resolves to a {@link Fit} of named, constrained draws. */
export async function sampleModel<S extends DataSpec>(model: Model<S>, data: DataValues<S> | Readonly<Record<string, unknown>>, options: FitOptions = {}): Promise<Fit> {
  // The placement's options (read by openFitRun from `options`) are not the sampler's settings.
  const { threads, signal, onDraw, allowExtraKeys, backend: _backend, device: _device, dtype: _dtype, onPlaced: _onPlaced, onPendingDecision: _onDecision, ...settings } = options;
  const compiled = compileModel(model, data, { allowExtraKeys: allowExtraKeys ?? false });
  const run = await openFitRun(compiled, settings, options, threads ?? 1);
  const density = run.density;
  const names = compiled.constrainedNames();
  const chains = settings.chains ?? 4;
  const warmup = settings.warmup ?? 1000;
  const draws = settings.draws ?? 1000;
  const kept = draws;
  // Column-major per chain, filled as the draws come: a column is what fit.draws(name) returns.
  const columns = new Map<string, Float64Array[]>();
  for (const n of [...SAMPLER_COLUMNS, ...names]) columns.set(n, Array.from({ length: chains }, () => new Float64Array(kept)));
  const order = [...SAMPLER_COLUMNS, ...names].map((n) => columns.get(n)!);
  const done = new Array<number>(chains).fill(0);
  const sampler = new Float64Array(SAMPLER_COLUMNS.length);
  const sampling = sampleAsync(density, {
    ...settings,
    ...run.options,
    keepDraws: false,
    ...(signal !== undefined ? { signal } : {}),
    onDraw: (d) => {
      onDraw?.(d);
      if (d.warmup) return;
      const at = d.iteration - warmup;
      samplerValues(d, sampler);
      const values = density.generated(d.position);
      for (let k = 0; k < sampler.length; k++) order[k]![d.chain]![at] = sampler[k]!;
      for (let k = 0; k < values.length; k++) order[sampler.length + k]![d.chain]![at] = values[k]!;
      done[d.chain] = at + 1;
    },
  });
  const result = await sampling.finally(() => run.dispose());
  // A stopped run keeps the draws every chain has (they stop after the same iteration).
  const n = Math.min(...done);
  if (n < kept) for (const [name, cols] of columns) columns.set(name, cols.map((c) => c.slice(0, n)));
  // The generated quantities (and, as asked, y_rep and log_lik) of every kept draw, as ppl sample writes them.
  const { seed, firstChain } = result.settings;
  const generated = generatedColumns(compiled, columns, { seed, firstChain, chains, draws: n }, options);
  for (const [name, cols] of generated.columns) columns.set(name, cols);
  return new Fit({ model, compiled, data: data as Readonly<Record<string, unknown>>, result, columns, maxDepth: result.settings.maxDepth, generated: generated.variables });
}

/**
 * The columns a Fit holds after the constrained parameters and deterministics, as `ppl sample`
 * writes them: the model's generated quantities; with `predictive`, every observe term's
 * predictive draws (y_rep, as `--predictive`); with `logLik`, each observed element's log density
 * (log_lik[1] …, as `--log-lik`). They are computed after the run from each kept draw's
 * constrained values, with random numbers from the run's streams addressed by (chain id, kept
 * draw) as the CLI addresses them, so that the same seed gives the CLI's values, bit for bit.
 */
import { generatedEvaluator } from "../generate/generated.ts";
import { LOG_LIK_NAME, logLikEvaluator } from "../loo/pointwise-log-lik.ts";
import type { CompiledModel } from "../model/compile.ts";
import { ModelError } from "../model/errors.ts";
import { FitError } from "./fit-error.ts";

/** A variable's name and shape ([] for a scalar). */
export interface VariableShape {
  readonly name: string;
  readonly shape: readonly number[];
}

/** Which generated columns a Fit computes beyond the model's generated quantities. */
export interface GeneratedColumnOptions {
  /** Also draw every observe term's predictive values, <field>_rep, as `ppl sample --predictive` (false). */
  readonly predictive?: boolean;
  /** Also keep each observed element's log density at every draw, log_lik[1] …, as `ppl sample --log-lik` (false). */
  readonly logLik?: boolean;
}

/** Where the kept draws came from: the run's seed, its first chain id, and each chain's draws. */
export interface GeneratedRun {
  readonly seed: number;
  readonly firstChain: number;
  readonly chains: number;
  readonly draws: number;
}

/** The generated variables (in column order) and their columns, each [chain][draw], from the constrained columns of a run. */
export function generatedColumns(
  compiled: CompiledModel, constrained: ReadonlyMap<string, readonly Float64Array[]>, run: GeneratedRun, options: GeneratedColumnOptions,
): { variables: VariableShape[]; columns: Map<string, Float64Array[]> } {
  const { quantities, observations } = compiled.recorded;
  const predictive = options.predictive === true && observations.length > 0;
  const logLik = options.logLik === true;
  const variables: VariableShape[] = quantities.map((q) => ({ name: q.name, shape: q.shape }));
  const columns = new Map<string, Float64Array[]>();
  const names = compiled.constrainedNames();
  if (logLik) refuseOwnLogLik(compiled, names);
  const gen = quantities.length > 0 || predictive ? generatedEvaluator(compiled, { seed: run.seed, predictive }) : null;
  if (gen !== null) gen.predictiveNames.forEach((name, k) => variables.push({ name, shape: observations[k]!.shape }));
  const ll = logLik ? logLikOf(compiled) : null;
  if (ll !== null) variables.push({ name: LOG_LIK_NAME, shape: [ll.names.length] });
  const out = [...(gen?.names ?? []), ...(ll?.names ?? [])];
  for (const n of out) columns.set(n, Array.from({ length: run.chains }, () => new Float64Array(run.draws)));
  if (out.length === 0) return { variables, columns };
  const sources = names.map((n) => constrained.get(n)!);
  const targets = out.map((n) => columns.get(n)!);
  const row = new Float64Array(names.length);
  for (let c = 0; c < run.chains; c++) {
    for (let d = 0; d < run.draws; d++) {
      for (let k = 0; k < row.length; k++) row[k] = sources[k]![c]![d]!;
      let k = 0;
      if (gen !== null) for (const v of gen.at(run.firstChain + c, d, row)) targets[k++]![c]![d] = v;
      if (ll !== null) for (const v of ll.at(row)) targets[k++]![c]![d] = v;
    }
  }
  return { variables, columns };
}

// As `ppl sample --log-lik`, a model that reports log_lik itself keeps it: the columns would clash.
function refuseOwnLogLik(compiled: CompiledModel, names: readonly string[]): void {
  const reported = [...names, ...compiled.recorded.quantities.map((q) => q.name)];
  const clash = reported.find((n) => n === LOG_LIK_NAME || n.startsWith(`${LOG_LIK_NAME}[`));
  if (clash !== undefined) {
    throw new FitError(`sample(…, { logLik: true }): model '${compiled.name}' reports '${clash}', and logLik adds columns of that name; rename the parameter, deterministic or generated quantity, or leave logLik out`);
  }
}

// The pointwise log-likelihood's evaluator; a model that observes nothing has none to keep.
function logLikOf(compiled: CompiledModel): ReturnType<typeof logLikEvaluator> {
  try {
    return logLikEvaluator(compiled);
  } catch (e) {
    if (e instanceof ModelError) throw new FitError(`sample(…, { logLik: true }): ${e.message}; leave logLik out`);
    throw e;
  }
}

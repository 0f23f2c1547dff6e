/**
 * The log_lik columns of `ppl sample --log-lik`: after the parameters and deterministics of each
 * draw, the log density of every observed element at that draw. They are computed on the host in
 * f64 from the draw's constrained values (the same values the CSV holds), so they do not depend
 * on the backend that sampled.
 */
import { LOG_LIK_NAME, logLikEvaluator, ModelError, type CompiledModel, type LogLikEvaluator } from "@ppl/ppl";
import { modelError } from "./exit-codes.ts";
import { firstLine } from "./load-model.ts";

/** Extra columns for each draw's CSV row; none when --log-lik is not given. */
export interface LogLikColumns {
  /** Bracket names log_lik[1] … log_lik[N] (written as log_lik.1 …), or none. */
  readonly names: readonly string[];
  /**
   * The row to write for a draw: its reported values (and any generated values after them)
   * followed by its log-likelihood (reused between calls).
   */
  row(generated: ArrayLike<number>): ArrayLike<number>;
}

/** The log_lik columns for `compiled` when `enabled`, or no columns; a model that cannot have them is a model error. */
export function logLikColumns(compiled: CompiledModel, enabled: boolean): LogLikColumns {
  if (!enabled) return { names: [], row: (generated) => generated };
  const reported = [...compiled.constrainedNames(), ...compiled.recorded.quantities.map((q) => q.name)];
  const clash = reported.find((n) => n === LOG_LIK_NAME || n.startsWith(`${LOG_LIK_NAME}[`));
  if (clash !== undefined) {
    throw modelError(`model '${compiled.name}' reports '${clash}', and --log-lik writes columns of that name; rename the parameter, deterministic or generated quantity`);
  }
  let ev: LogLikEvaluator;
  try {
    ev = logLikEvaluator(compiled);
  } catch (e) {
    if (e instanceof ModelError) throw modelError(`${e.message}: --log-lik needs at least one m.observe(data, distribution); drop --log-lik`);
    throw modelError(`model '${compiled.name}': its log-likelihood could not be compiled for --log-lik: ${firstLine(e)}`);
  }
  // Sized by the first row: generated columns may come between the reported values and log_lik.
  let row = new Float64Array(0);
  return {
    names: ev.names,
    row(generated) {
      if (row.length !== generated.length + ev.names.length) row = new Float64Array(generated.length + ev.names.length);
      row.set(generated);
      row.set(ev.at(generated), generated.length);
      return row;
    },
  };
}

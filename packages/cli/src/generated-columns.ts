/**
 * The generated columns of a run: after the parameters and deterministics of each draw, the model's
 * generated quantities (m.generated, in declaration order) and, when asked, the predictive draws of
 * every observe term (<field>_rep). Like the log_lik columns they are computed on the host in f64
 * from the draw's constrained values, with random numbers from the Philox streams of the run's seed
 * addressed by (chain, kept draw), so they do not depend on the backend that sampled and
 * `ppl generate` over the run's files gives them again.
 */
import { generatedEvaluator, ModelError, type CompiledModel, type GeneratedEvaluator } from "@ppl/ppl";
import { modelError } from "./exit-codes.ts";

/** Extra columns for each draw's CSV row; none when the model declares no generated quantities and predictive draws are not asked for. */
export interface GeneratedColumns {
  /** Bracket names of the columns (written dotted: y_rep.1 …). */
  readonly names: readonly string[];
  /** The base names of the predictive draws (y_rep), one per observe term; empty without predictive draws. */
  readonly predictiveNames: readonly string[];
  /** The row for draw `draw` of chain `chain`: its reported values followed by its generated values (reused between calls). */
  row(chain: number, draw: number, reported: ArrayLike<number>): ArrayLike<number>;
}

/** The generated columns of `compiled` for a run with `seed`; a model whose quantities fail is a model error naming the quantity and draw. */
export function generatedColumns(compiled: CompiledModel, seed: number, predictive: boolean): GeneratedColumns {
  if (compiled.recorded.quantities.length === 0 && (!predictive || compiled.recorded.observations.length === 0)) {
    return { names: [], predictiveNames: [], row: (_c, _d, reported) => reported };
  }
  let ev: GeneratedEvaluator;
  try {
    ev = generatedEvaluator(compiled, { seed, predictive });
  } catch (e) {
    if (e instanceof ModelError) throw modelError(e.message, e);
    throw e;
  }
  let row = new Float64Array(0);
  return {
    names: ev.names,
    predictiveNames: ev.predictiveNames,
    row(chain, draw, reported) {
      if (row.length !== reported.length + ev.names.length) row = new Float64Array(reported.length + ev.names.length);
      row.set(reported);
      try {
        row.set(ev.at(chain, draw, reported), reported.length);
      } catch (e) {
        if (e instanceof ModelError) throw modelError(`model '${compiled.name}': ${e.message}`, e);
        throw e;
      }
      return row;
    },
  };
}

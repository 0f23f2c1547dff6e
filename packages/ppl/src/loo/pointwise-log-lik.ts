/**
 * The pointwise log-likelihood of posterior draws: the log density of every observed element at
 * each draw, computed on the host in f64 from the draw's constrained parameter values — whatever
 * backend made the draws — with the compiled CPU path. It is what PSIS-LOO reads (`log_lik` in
 * Stan's convention).
 */
import { type Bindings, type TensorValue } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/ir";
import { optimize } from "@ppl/tensor/passes";
import { compiledBackend } from "@ppl/tensor/backend";
import type { Draws } from "../diagnostics/draws.ts";
import { hoistData } from "../density/hoist-data.ts";
import { compileModel, type CompiledModel } from "../model/compile.ts";
import type { CheckDataOptions } from "../model/check-data.ts";
import { ModelError } from "../model/errors.ts";
import type { Model } from "../model/model.ts";
import { stanNames } from "../model/stan-names.ts";

/** The name of the log-likelihood columns: log_lik[1] … log_lik[N]. */
export const LOG_LIK_NAME = "log_lik";

/** Evaluates a compiled model's pointwise log-likelihood at one draw after another. */
export interface LogLikEvaluator {
  /** log_lik[1] … log_lik[N], one per observed element. */
  readonly names: readonly string[];
  /** How many leading entries of a constrained draw (constrainedNames() order) are parameters. */
  readonly parameterEntries: number;
  /**
   * The log-likelihood of every observed element at one draw, from its constrained values in
   * constrainedNames() order (deterministics after the parameters may follow; they are not read).
   * The returned array is reused by the next call.
   */
  at(constrained: ArrayLike<number>): Float64Array;
}

/** Compiles a model's pointwise log-likelihood for the CPU (f64); the model must observe something. */
export function logLikEvaluator(model: CompiledModel): LogLikEvaluator {
  const graph = model.logLik;
  if (graph === undefined) {
    throw new ModelError(`model '${model.name}' observes nothing (no m.observe terms), so it has no pointwise log-likelihood`);
  }
  // Observe terms reach parameters only through their constrained values, which compileModel
  // replaced by the constrained leaf; an unconstrained leaf left over would be read as zeros.
  const stray = toposort([graph]).find((n) => n.op === "param" && n !== model.constrainedParams);
  if (stray !== undefined) throw new Error(`logLikEvaluator: the log-likelihood of model '${model.name}' still reads '${String(stray.attrs.name)}'; this is a bug`);
  const backend = compiledBackend();
  const hoisted = hoistData(optimize([graph]), model.dataBindings, backend);
  const exe = backend.compileSync(hoisted.outputs);
  const entries = model.constrainedParams.size;
  const leafName = String(model.constrainedParams.attrs.name);
  const leaf: TensorValue = { dtype: "f64", shape: [entries], data: new Float64Array(entries) };
  const bindings: Bindings = { ...model.dataBindings, ...hoisted.bindings, [leafName]: leaf };
  const out = new Float64Array(graph.size);
  return {
    names: stanNames(LOG_LIK_NAME, [graph.size]),
    parameterEntries: entries,
    at(constrained) {
      if (constrained.length < entries) throw new Error(`logLikEvaluator: a draw of model '${model.name}' has ${entries} parameter values, got ${constrained.length}`);
      for (let i = 0; i < entries; i++) leaf.data[i] = constrained[i]!;
      out.set(exe.runSync(bindings)[0]!.data);
      return out;
    },
  };
}

/**
 * The pointwise log-likelihood of stored draws: `draws` holds every constrained parameter entry
 * by its bracket name (mu, theta[1], L[2,1]; as collectChains gives them from Stan CSV files),
 * each [chain][draw]. Returns [observation][chain][draw], the layout `loo` takes.
 */
export function pointwiseLogLik(model: Model, data: unknown, draws: Readonly<Record<string, Draws>>, opts: CheckDataOptions = {}): Float64Array[][] {
  const compiled = compileModel(model, data, opts);
  const ev = logLikEvaluator(compiled);
  const names = compiled.constrainedNames().slice(0, ev.parameterEntries);
  const missing = names.filter((n) => draws[n] === undefined);
  if (missing.length > 0) throw new Error(`pointwiseLogLik: the draws have no ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ", …" : ""}; give every parameter of model '${model.name}' by its bracket name`);
  const columns = names.map((n) => draws[n]!);
  const chains = columns[0]?.length ?? 0;
  const lengths = Array.from({ length: chains }, (_, c) => columns[0]![c]!.length);
  columns.forEach((col, j) => {
    if (col.length !== chains || col.some((ch, c) => ch.length !== lengths[c])) {
      throw new Error(`pointwiseLogLik: '${names[j]}' has other chains or draws than '${names[0]}'; give every parameter the same [chain][draw] layout`);
    }
  });
  const result = ev.names.map(() => lengths.map((n) => new Float64Array(n)));
  const row = new Float64Array(ev.parameterEntries);
  for (let c = 0; c < chains; c++) {
    for (let s = 0; s < lengths[c]!; s++) {
      for (let j = 0; j < columns.length; j++) row[j] = columns[j]![c]![s]!;
      const ll = ev.at(row);
      for (let i = 0; i < ll.length; i++) result[i]![c]![s] = ll[i]!;
    }
  }
  return result;
}

import {
  concat, constant, data as dataLeaf, interpret, param as paramLeaf, reshape, slice, type Node, type Shape, type TensorValue,
} from "@ppl/tensor";
import { substitute } from "@ppl/tensor/internals";
import { checkData, type CheckDataOptions, type CheckedData } from "./check-data.ts";
import { Recorder, type DeclaredObservation, type DeclaredParam, type DeclaredQuantity, type DeclaredTerm } from "./builder.ts";
import { checkDataIndices } from "./check-indices.ts";
import { checkNanData } from "./check-nan-data.ts";
import type { DataSpec, DataValues } from "./data-spec.ts";
import { ModelError } from "./errors.ts";
import { isModel, type Model } from "./model.ts";
import { flattenStanOrder, stanNames, unflattenStanOrder } from "./stan-names.ts";
import { registerFusedDensity } from "./fused-density.ts";

/** Where a parameter lives on the unconstrained vector q, and its constrained shape. */
export interface ParamInfo {
  readonly name: string;
  /** Constrained shape. */
  readonly shape: Shape;
  readonly constrainedSize: number;
  readonly unconstrainedSize: number;
  /** First index of this parameter's slice of q. */
  readonly offset: number;
  /** Name of the constraint (real, positive, simplex, …). */
  readonly transform: string;
}

/** A reported quantity: a parameter (constrained) or a deterministic. */
export interface GeneratedInfo {
  readonly name: string;
  readonly shape: Shape;
  readonly kind: "param" | "deterministic";
}

/**
 * What a model's build declared beyond its log density, for the draws made on the host from
 * constrained values: generated quantities, predictive draws of the observe terms, prior draws.
 */
export interface RecordedModel {
  readonly params: readonly DeclaredParam[];
  readonly deterministics: readonly { readonly name: string; readonly value: Node }[];
  readonly observations: readonly DeclaredObservation[];
  /** Each m.factor term as messages name it. */
  readonly factors: readonly string[];
  readonly quantities: readonly DeclaredQuantity[];
  /** The terms of the log density as declared, in order: labels, values over the parameters' own leaves, declaration sites. */
  readonly terms: readonly DeclaredTerm[];
  /**
   * Each parameter's constrained value node → its entries of `constrainedParams`, reshaped:
   * substituted into any node of the model, it makes the node read a stored draw.
   */
  readonly atConstrained: ReadonlyMap<Node, Node>;
}

/** A model compiled against its data: graphs over one unconstrained vector `q` plus the data leaves. */
export interface CompiledModel {
  readonly name: string;
  /** Length of q. */
  readonly dim: number;
  readonly paramInfo: readonly ParamInfo[];
  /** Scalar log density of q (priors, likelihood, factors, log-Jacobians), reading data through `data` leaves. */
  readonly logDensity: Node;
  /**
   * The same log density with each long observation summed by its distribution's fused node
   * (lpdf_sum, hand-written partials), equal to logDensity to rounding: what modelDensity
   * differentiates (found from logDensity, so a copy of the model with another logDensity is not
   * fused). The GPU sampler's kernels keep logDensity, whose expansion their row passes recognise.
   */
  readonly fusedLogDensity: Node;
  /** The unconstrained vector leaf: param "q" of shape [dim]. */
  readonly q: Node;
  /** Each reported quantity as a function of q, flattened in Stan's order (first index fastest). */
  readonly generated: readonly Node[];
  readonly generatedInfo: readonly GeneratedInfo[];
  /** All reported values in one vector, in the order of constrainedNames(). */
  readonly generatedFlat: Node;
  /** Values for the graphs' data leaves. */
  readonly dataBindings: Readonly<Record<string, TensorValue>>;
  readonly data: CheckedData;
  /**
   * The constrained parameter values as one vector leaf (param "c:params"): the parameters'
   * entries of generatedFlat (its first ones), in constrainedNames() order.
   */
  readonly constrainedParams: Node;
  /**
   * The pointwise log-likelihood: the log density of every observed element as one vector —
   * observe terms in declaration order, each one's elements row-major (one entry per event of a
   * multivariate distribution) — as a function of `constrainedParams` and the data leaves, so that
   * it can be evaluated from stored draws. Undefined when the model observes nothing.
   */
  readonly logLik: Node | undefined;
  /** What build declared beyond the log density (generated quantities, observe and factor terms, priors). */
  readonly recorded: RecordedModel;
  /** Stan-style names of the entries of generatedFlat: mu, theta[1], L[2,1]. */
  constrainedNames(): string[];
  /**
   * q from constrained values by name (Stan init format: numbers and nested arrays, matrices as rows);
   * parameters left out stay 0 on the unconstrained scale.
   */
  unconstrain(values: Readonly<Record<string, unknown>>): Float64Array;
  /** Log density at q, by the reference interpreter. */
  logDensityAt(q: ArrayLike<number>): number;
  /** Reported values at q, in the order of constrainedNames(), by the reference interpreter. */
  generatedAt(q: ArrayLike<number>): Float64Array;
}

/** Check the data, run the model's build and produce the log density over the unconstrained vector q. */
export function compileModel<S extends DataSpec>(m: Model<S>, json: unknown, opts: CheckDataOptions = {}): CompiledModel {
  if (!isModel(m)) throw new ModelError("compileModel: expects a model made by model({ name, data, build }) (a model file's default export)");
  const checked = checkData(m.data, json, opts);
  const values: Record<string, number | Node> = {};
  const dataBindings: Record<string, TensorValue> = {};
  for (const [key, f] of Object.entries(m.data)) {
    const v = checked[key]!;
    if (f.kind === "int") values[key] = v.data[0]!;
    else {
      values[key] = dataLeaf(key, v.shape);
      dataBindings[key] = v;
    }
  }
  const rec = new Recorder(m.name, Object.keys(m.data));
  m.build(rec, guardData(m.name, values) as DataValues<S>, checked);
  if (rec.params.length === 0) throw new ModelError(`model '${m.name}': build declared no parameters; declare at least one with m.param(name, prior)`);

  let offset = 0;
  const paramInfo: ParamInfo[] = rec.params.map((p) => {
    const info = {
      name: p.name,
      shape: p.shape,
      constrainedSize: p.transform.constrainedSize,
      unconstrainedSize: p.transform.unconstrainedSize,
      offset,
      transform: p.transform.name,
    };
    offset += p.transform.unconstrainedSize;
    return info;
  });
  const dim = offset;
  const q = paramLeaf("q", [dim]);
  const replace = new Map<Node, Node>(
    rec.params.map((p, i) => [p.leaf, slice(q, [{ start: paramInfo[i]!.offset, stop: paramInfo[i]!.offset + p.transform.unconstrainedSize }])]),
  );
  const reported = [
    ...rec.params.map((p) => ({ name: p.name, shape: p.shape, kind: "param" as const, node: p.value })),
    ...rec.deterministics.map((d) => ({ name: d.name, shape: d.value.shape, kind: "deterministic" as const, node: d.value })),
  ];
  const [logDensity, fusedLogDensity, ...generated] = substitute([rec.total(), rec.total(true), ...reported.map((r) => flattenStanOrder(r.node))], replace);
  registerFusedDensity(logDensity!, fusedLogDensity!);
  const generatedFlat = generated.length === 1 ? generated[0]! : concat(generated.map((g) => g!));
  const generatedInfo = reported.map(({ name, shape, kind }) => ({ name, shape, kind }));
  const { constrainedParams, atConstrained } = constrainedLeaf(rec.params);
  const logLik = rec.observed.length === 0 ? undefined : logLikAt(rec.observed, atConstrained);
  // Data the model reads as indices, or reads as NaN, are checked now that the reading is known.
  checkDataIndices([logDensity!, fusedLogDensity!, generatedFlat, ...(logLik ? [logLik] : []), ...rec.quantityNodes], m.data, checked, dataBindings);
  checkNanData(rec.declaredTerms, rec.params, dataBindings);
  const bindingsWith = (qv: ArrayLike<number>) => ({ ...dataBindings, q: { dtype: "f64" as const, shape: [dim], data: Float64Array.from(qv) } });

  return {
    name: m.name,
    dim,
    paramInfo,
    logDensity: logDensity!,
    fusedLogDensity: fusedLogDensity!,
    q,
    generated: generated as Node[],
    generatedInfo,
    generatedFlat,
    dataBindings,
    data: checked,
    constrainedParams,
    logLik,
    recorded: {
      params: rec.params,
      deterministics: rec.deterministics,
      observations: rec.observations,
      factors: rec.factors,
      quantities: rec.quantities,
      terms: rec.declaredTerms,
      atConstrained,
    },
    constrainedNames: () => generatedInfo.flatMap((g) => stanNames(g.name, g.shape)),
    unconstrain: (vals) => unconstrain(m.name, rec.params, paramInfo, replace, vals, dim, bindingsWith),
    logDensityAt: (qv) => interpret([logDensity!], bindingsWith(qv))[0]!.data[0]!,
    generatedAt: (qv) => interpret([generatedFlat], bindingsWith(qv))[0]!.data,
  };
}

// The data as build sees it: reading a field the spec does not declare (a typo such as d.Y for
// d.y) throws a ModelError naming it, where a plain object would hand back undefined and the
// mistake would surface later as a TypeError far from its cause.
function guardData(modelName: string, values: Record<string, number | Node>): Record<string, number | Node> {
  return new Proxy(values, {
    get(target, key, receiver) {
      if (typeof key === "symbol" || key in target) return Reflect.get(target, key, receiver) as unknown;
      const fields = Object.keys(target);
      const near = fields.find((f) => f.toLowerCase() === key.toLowerCase()) ?? fields.find((f) => editDistance(f, key) <= Math.min(2, Math.floor(key.length / 2)));
      throw new ModelError(
        `model '${modelName}': build reads d.${key}, but the data spec declares no field '${key}' (its fields: ${fields.join(", ") || "none"})${near !== undefined ? `; did you mean d.${near}?` : "; declare it in the model's data"}`,
      );
    },
  });
}

// Levenshtein distance, for suggesting the declared name nearest to a misspelled one.
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

// Every parameter's constrained value read from one vector leaf in Stan's output order (the order
// of the CSV columns). The model's other nodes see parameters only through their constrained
// values, so substituting these removes every unconstrained leaf from them.
function constrainedLeaf(params: readonly DeclaredParam[]): { constrainedParams: Node; atConstrained: Map<Node, Node> } {
  const size = params.reduce((n, p) => n + p.value.size, 0);
  const constrainedParams = paramLeaf("c:params", [size]);
  let offset = 0;
  const atConstrained = new Map<Node, Node>(
    params.map((p) => {
      const value = unflattenStanOrder(slice(constrainedParams, [{ start: offset, stop: offset + p.value.size }]), p.value.shape);
      offset += p.value.size;
      return [p.value, value];
    }),
  );
  return { constrainedParams, atConstrained };
}

// The observed elements' log densities as one vector, reading the parameters from the constrained leaf.
function logLikAt(observed: readonly Node[], atConstrained: ReadonlyMap<Node, Node>): Node {
  const flat = observed.map((o) => reshape(o, [o.size]));
  return substitute([flat.length === 1 ? flat[0]! : concat(flat)], atConstrained)[0]!;
}

function unconstrain(
  modelName: string,
  params: readonly DeclaredParam[],
  info: readonly ParamInfo[],
  replace: ReadonlyMap<Node, Node>,
  vals: Readonly<Record<string, unknown>>,
  dim: number,
  bindingsWith: (q: ArrayLike<number>) => Record<string, TensorValue>,
): Float64Array {
  const known = new Set(params.map((p) => p.name));
  for (const k of Object.keys(vals)) {
    if (!known.has(k)) throw new ModelError(`unconstrain: '${k}' is not a parameter of model '${modelName}' (parameters: ${[...known].join(", ")})`);
  }
  const q = new Float64Array(dim);
  // In declaration order: a bound may depend on earlier parameters, whose slices of q are filled by then.
  params.forEach((p, i) => {
    if (!(p.name in vals)) return;
    const flat = flattenNested(p.name, vals[p.name]);
    if (flat.length !== p.transform.constrainedSize) {
      throw new ModelError(`unconstrain: '${p.name}' has ${flat.length} values, the parameter has shape [${p.shape.join(",")}] (${p.transform.constrainedSize} values)`);
    }
    const [inv] = substitute([p.transform.inverse(reshape(constant(flat, [flat.length]), p.shape))], replace);
    const u = interpret([inv!], bindingsWith(q))[0]!.data;
    for (let j = 0; j < u.length; j++) {
      if (!Number.isFinite(u[j]!)) throw new ModelError(`unconstrain: '${p.name}' = ${JSON.stringify(vals[p.name])} violates its constraint (${p.transform.name})`);
      q[info[i]!.offset + j] = u[j]!;
    }
  });
  return q;
}

// Row-major values of a number or nested arrays (Stan's JSON: matrices as arrays of rows).
function flattenNested(name: string, v: unknown): number[] {
  if (typeof v === "number") return [v];
  if (Array.isArray(v)) return v.flatMap((e) => flattenNested(name, e));
  throw new ModelError(`unconstrain: '${name}' must be a number or nested arrays of numbers, got ${typeof v}`);
}


/**
 * Generated quantities and predictive draws of one kept draw, computed on the host in f64 from the
 * draw's constrained values — as Stan's generated quantities block runs after each transition —
 * so that they do not depend on the backend that sampled. Quantity k of draw s of chain c reads the
 * Philox stream (seed, c, s, Purpose.Generated, k); the predictive draw of observe term k reads
 * (seed, c, s, Purpose.Predictive, k). `ppl generate` over a run's CSV files therefore repeats the
 * run's own generated columns.
 */
import { type Operand, type Shape, type TensorValue } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import type { Distribution } from "../distributions/distribution.ts";
import { sampleToShape } from "../distributions/sampling.ts";
import type { CompiledModel } from "../model/compile.ts";
import { ModelError } from "../model/errors.ts";
import type { GeneratedDraw, GeneratedValue } from "../model/generated.ts";
import { copyInStanOrder, stanNames } from "../model/stan-names.ts";
import { StreamRng } from "../random/rng.ts";
import { Purpose, seedKey } from "../random/streams.ts";
import { DrawValues } from "./draw-values.ts";

/** The suffix of the predictive draws of an observed data field: y → y_rep. */
export const PREDICTIVE_SUFFIX = "_rep";

/** Options of generatedEvaluator. */
export interface GeneratedEvaluatorOptions {
  /** The run's seed (its Philox key). */
  readonly seed: number;
  /** Also draw every observe term's predictive values (y_rep). */
  readonly predictive?: boolean;
}

/** Evaluates a compiled model's generated quantities (and predictive draws) at one draw after another. */
export interface GeneratedEvaluator {
  /** Bracket names of the values `at` returns: the generated quantities in declaration order, then the predictive draws. */
  readonly names: readonly string[];
  /** The base name of each observe term's predictive draws, in declaration order (empty without `predictive`). */
  readonly predictiveNames: readonly string[];
  /**
   * The generated values of draw `draw` (0-based among the chain's kept draws) of chain `chain`
   * (0-based), from its constrained values in constrainedNames() order (the parameters are read;
   * deterministics may follow). Each value in Stan's order; the array is reused by the next call.
   * A quantity that fails, or gives a value of the wrong size, is a ModelError naming it and the draw.
   */
  at(chain: number, draw: number, constrained: ArrayLike<number>): Float64Array;
}

/**
 * The base names of the predictive draws of a model's observe terms: `<field>_rep` for an observe
 * of a whole data field observed by no other term (observe(d.y, …) → y_rep), else `obs<k>_rep`
 * with k the term's 1-based position among the observe terms.
 */
export function predictiveNames(model: CompiledModel): string[] {
  const obs = model.recorded.observations;
  const field = obs.map((o) => (o.value.op === "data" ? String(o.value.attrs.name) : undefined));
  return obs.map((_, k) => {
    const f = field[k];
    const alone = f !== undefined && field.filter((g) => g === f).length === 1;
    return alone ? `${f}${PREDICTIVE_SUFFIX}` : `obs${k + 1}${PREDICTIVE_SUFFIX}`;
  });
}

/** Compiles a model's generated quantities (and, with `predictive`, its predictive draws) for evaluation at stored or fresh draws. */
export function generatedEvaluator(model: CompiledModel, opts: GeneratedEvaluatorOptions): GeneratedEvaluator {
  const { quantities, observations, params, deterministics } = model.recorded;
  const predictive = opts.predictive ?? false;
  const repNames = predictive ? predictiveNames(model) : [];
  const reported = new Set([...params.map((p) => p.name), ...deterministics.map((d) => d.name), ...quantities.map((q) => q.name)]);
  const clash = repNames.find((n) => reported.has(n));
  if (clash !== undefined) {
    throw new ModelError(`model '${model.name}' declares '${clash}', the name of the predictive draws of one of its observe terms; rename that parameter, deterministic or generated quantity`);
  }
  const names = [
    ...quantities.flatMap((q) => stanNames(q.name, q.shape)),
    ...repNames.flatMap((n, k) => stanNames(n, observations[k]!.shape)),
  ];
  const values = new DrawValues(model);
  const rng = new StreamRng(seedKey(opts.seed), 0, 0, Purpose.Generated, 0);
  const out = new Float64Array(names.length);
  // This draw's generated values so far, row-major, for draw.get.
  const done = new Map<string, TensorValue>();
  const nodeOf = new Map([...params.map((p) => [p.name, p.value] as const), ...deterministics.map((d) => [d.name, d.value] as const)]);

  const draw = (chain: number, index: number, quantity: string): GeneratedDraw => ({
    chain,
    draw: index,
    values: (nodes) => values.values(nodes),
    value: (x: Operand) => values.value(x),
    number(x: Operand) {
      const v = values.value(x);
      if (v.data.length !== 1) throw new ModelError(`draw.number: the value has shape [${v.shape.join(",")}]; use draw.value for arrays`);
      return v.data[0]!;
    },
    get(name: string) {
      const g = done.get(name);
      if (g !== undefined) return g;
      const node = nodeOf.get(name);
      if (node !== undefined) return values.value(node);
      const known = [...nodeOf.keys(), ...done.keys()];
      throw new ModelError(`draw.get: '${name}' is not a parameter, deterministic or earlier generated quantity of '${quantity}' (known: ${known.join(", ")})`);
    },
    sample: (dist: Distribution, shape: Shape = []) => dist.sample(rng, shape, values),
  });

  return {
    names,
    predictiveNames: repNames,
    at(chain, index, constrained) {
      values.set(constrained);
      done.clear();
      let offset = 0;
      quantities.forEach((q, k) => {
        rng.reset(chain, index, Purpose.Generated, k);
        const where = `generated quantity '${q.name}' (chain ${chain + 1}, draw ${index + 1})`;
        let value: GeneratedValue;
        try {
          value = q.compute(draw(chain, index, q.name), rng);
        } catch (e) {
          throw new ModelError(`${where}: ${e instanceof Error ? e.message : String(e)}`);
        }
        const data = rowMajor(where, value, q.shape);
        done.set(q.name, { dtype: "f64", shape: q.shape, data });
        copyInStanOrder(data, q.shape, out, offset);
        offset += data.length;
      });
      repNames.forEach((name, k) => {
        const o = observations[k]!;
        rng.reset(chain, index, Purpose.Predictive, k);
        let v: TensorValue | undefined;
        try {
          v = sampleToShape(o.distribution, o.shape, rng, values);
        } catch (e) {
          throw new ModelError(`the predictive draws ${name} of ${o.label} (chain ${chain + 1}, draw ${index + 1}): ${e instanceof Error ? e.message : String(e)}`);
        }
        if (v === undefined) throw new Error(`generatedEvaluator: ${o.label} cannot hold its own draws; this is a bug`);
        copyInStanOrder(v.data, o.shape, out, offset);
        offset += v.data.length;
      });
      return out;
    },
  };
}

// A generated value as a row-major Float64Array of `shape`, or a ModelError saying what came instead.
function rowMajor(where: string, value: GeneratedValue, shape: Shape): Float64Array {
  const n = sizeOf(shape);
  const declared = shape.length === 0 ? "a scalar" : `of shape [${shape.join(",")}]`;
  const fix = shape.length === 0 ? "; declare its shape: m.generated(name, fn, { shape: [...] })" : "";
  let got: { shape: readonly number[] | undefined; data: ArrayLike<number> };
  if (typeof value === "number") got = { shape: [], data: [value] };
  else if (isTensorValue(value)) got = { shape: value.shape, data: value.data };
  else if (Array.isArray(value) && value.some((e) => Array.isArray(e))) got = nested(where, value);
  else if (typeof value === "object" && value !== null && typeof (value as ArrayLike<number>).length === "number") got = { shape: undefined, data: value as ArrayLike<number> };
  else throw new ModelError(`${where} gave ${describeValue(value)}; give a number, an array of numbers or a tensor value`);
  if (got.data.length !== n) {
    throw new ModelError(`${where} gave ${got.data.length} value${got.data.length === 1 ? "" : "s"}, but it is declared ${declared} (${n} value${n === 1 ? "" : "s"})${fix}`);
  }
  // Sizes agree; a matrix given in another shape would be read in the wrong order.
  if (got.shape !== undefined && got.shape.length > 1 && shape.length > 1 && got.shape.some((d, i) => d !== shape[i])) {
    throw new ModelError(`${where} gave a value of shape [${got.shape.join(",")}], but it is declared ${declared}`);
  }
  const data = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const v: unknown = got.data[i];
    if (typeof v !== "number") throw new ModelError(`${where} gave ${describeValue(v)} at entry ${i + 1}; every entry must be a number`);
    data[i] = v;
  }
  return data;
}

function isTensorValue(v: unknown): v is TensorValue {
  return typeof v === "object" && v !== null && "data" in v && "shape" in v && Array.isArray((v as TensorValue).shape);
}

// Nested arrays: their row-major entries and the shape their nesting gives (checked rectangular).
function nested(where: string, value: readonly unknown[]): { shape: number[]; data: number[] } {
  const shape: number[] = [];
  for (let v: unknown = value; Array.isArray(v); v = v[0]) shape.push(v.length);
  const data: number[] = [];
  const walk = (v: unknown, level: number): void => {
    if (level === shape.length) {
      data.push(v as number);
      return;
    }
    if (!Array.isArray(v) || v.length !== shape[level]) throw new ModelError(`${where} gave nested arrays that are not rectangular (expected ${shape[level]} entries at depth ${level + 1})`);
    for (const e of v) walk(e, level + 1);
  };
  walk(value, 0);
  return { shape, data };
}

function describeValue(v: unknown): string {
  if (v === undefined) return "undefined (did the function return its value?)";
  if (v === null) return "null";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 20 ? v.slice(0, 20) + "…" : v)}`;
  return `${typeof v === "object" ? "an object" : `${typeof v} ${String(v)}`}`;
}

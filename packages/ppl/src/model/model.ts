import type { Node, Operand, Shape } from "@ppl/tensor";
import type { Distribution } from "../distributions/distribution.ts";
import type { TruncationBounds } from "../distributions/truncated-normal.ts";
import type { Constraint } from "../transforms/transform.ts";
import type { DataSpec, DataValues } from "./data-spec.ts";
import type { CheckedData } from "./check-data.ts";
import { ModelError } from "./errors.ts";
import type { GeneratedFunction, GeneratedOptions } from "./generated.ts";

/** Options of a parameter: its shape (default: the prior's shape, or scalar) and an explicit constraint (default: from the prior's support). */
export interface ParamOptions {
  shape?: Shape;
  constraint?: Constraint;
}

/** What a model's `build` uses to declare parameters, derived quantities and log-density terms. */
export interface ModelBuilder {
  /**
   * A parameter with an optional prior (none = flat on the constrained scale); returns its
   * constrained value. `m.param(name, options)` declares a flat-prior parameter.
   */
  param(name: string, prior?: Distribution | ParamOptions, opts?: ParamOptions): Node;
  /** A derived quantity reported with the draws; returns the node. */
  deterministic(name: string, value: Operand): Node;
  /** Observed data (or any value) with a distribution: adds the sum of its log density. */
  observe(value: Operand, dist: Distribution): void;
  /**
   * Censored observations of a univariate distribution with lcdf and lccdf: an element at or below
   * `lower` adds log F(lower), one at or above `upper` adds log P(X ≥ upper), the others their log
   * density. Limits broadcast against the value (per-element limits, ±∞ for none). Pointwise
   * log-likelihoods and predictive draws follow the censoring (draws are clamped to the limits).
   */
  observeCensored(value: Operand, dist: Distribution, bounds: TruncationBounds): void;
  /** A custom term added to the log density (summed if not a scalar). */
  factor(term: Operand): void;
  /**
   * A generated quantity, written after the parameters and deterministics: computed on the host
   * once per kept draw, with random numbers from its own stream. `m.generated(name, dist)` is a
   * draw of a distribution whose parameters are nodes of the model (normal(theta, d.sigma));
   * `m.generated(name, (draw, rng) => value, { shape })` any value computed from the draw.
   */
  generated(name: string, quantity: Distribution | GeneratedFunction, opts?: GeneratedOptions): void;
  /** The node of a parameter or deterministic declared earlier. */
  get(name: string): Node;
}

/** A model definition: a name, a data spec and a build function run once the data are checked. */
export interface ModelDefinition<S extends DataSpec> {
  name: string;
  data: S;
  /**
   * Declares the model. `values` holds every data field's checked values, for a build that decides
   * its structure from data values (a Stan program's loop bounds and branches over int arrays);
   * a graph should read data through `d`, so that the values stay bound, not baked in.
   */
  build(m: ModelBuilder, d: DataValues<S>, values: CheckedData): void;
}

const MODEL_BRAND = "ppl.model/v1";

/** A model, as model files default-export it. */
export interface Model<S extends DataSpec = DataSpec> extends ModelDefinition<S> {
  readonly brand: typeof MODEL_BRAND;
}

const NAME = /^[A-Za-z][A-Za-z0-9_]*$/;

/** Define a model; checks its name and data spec (sizes must name int fields). */
export function model<S extends DataSpec>(def: ModelDefinition<S>): Model<S> {
  if (typeof def !== "object" || def === null) throw new ModelError("model: expects { name, data, build }");
  for (const key of Object.keys(def)) {
    if (!["name", "data", "build"].includes(key)) throw new ModelError(`model: unknown field '${key}'; a model has name, data and build`);
  }
  if (typeof def.name !== "string" || def.name.length === 0) throw new ModelError("model: give the model a non-empty name");
  // The name goes into every Stan CSV header as `# model = NAME`: a line break would end that line.
  if (/\p{Cc}/u.test(def.name)) {
    throw new ModelError(`model: the name ${JSON.stringify(def.name)} holds a line break or another control character; give it a one-line name`);
  }
  if (typeof def.build !== "function") throw new ModelError(`model '${def.name}': build must be a function (m, d) => { ... }`);
  const spec = def.data ?? ({} as S);
  for (const [key, f] of Object.entries(spec)) {
    if (!NAME.test(key)) throw new ModelError(`model '${def.name}': data name '${key}' is not an identifier; use letters, digits and _`);
    if (key === "q") throw new ModelError(`model '${def.name}': the data name 'q' is reserved for the unconstrained parameter vector; rename it`);
    if (typeof f !== "object" || f === null || !("dims" in f)) throw new ModelError(`model '${def.name}': data field '${key}' must be declared with data.int(), data.vector(...), …`);
    for (const d of f.dims) {
      if (typeof d === "string" && spec[d]?.kind !== "int") {
        throw new ModelError(`model '${def.name}': data field '${key}' is sized by '${d}', which is not an int data field; declare ${d}: data.int()`);
      }
      if (typeof d === "number" && !(Number.isInteger(d) && d >= 0)) throw new ModelError(`model '${def.name}': data field '${key}' has size ${d}; sizes are non-negative integers`);
    }
    for (const side of ["lower", "upper"] as const) {
      const b = f[side];
      if (typeof b === "string" && spec[b]?.kind !== "int" && spec[b]?.kind !== "real") {
        throw new ModelError(`model '${def.name}': data field '${key}' has ${side} bound '${b}', which is not an int or real scalar data field; declare ${b}: data.int() or give a number`);
      }
    }
  }
  return { name: def.name, data: spec, build: def.build, brand: MODEL_BRAND };
}

/** True for values made by `model(...)` (also across copies of this module, by a brand string). */
export function isModel(x: unknown): x is Model {
  return typeof x === "object" && x !== null && (x as Model).brand === MODEL_BRAND && typeof (x as Model).build === "function";
}

/** True for valid parameter and deterministic names. */
export function isValidName(name: string): boolean {
  return NAME.test(name);
}

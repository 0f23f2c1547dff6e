import type { Node } from "@ppl/tensor";
import { describeValue } from "./arguments.ts";
import { ModelError } from "./errors.ts";

/** A size: a number, or the name of an int data field whose value gives it. */
export type Size = string | number;

/**
 * Optional bounds checked on every entry of a data field: a number, or the name of an int or real
 * scalar data field whose value gives it (Stan's `int<lower=1, upper=G>`).
 */
export interface DataBounds {
  lower?: number | string;
  upper?: number | string;
}

/** The kinds of data field. */
export type DataKind = "int" | "real" | "vector" | "int_vector" | "matrix" | "array";

/** One declared data field: its kind, dimensions (sizes may name int fields), integrality and bounds. */
export interface DataField<K extends DataKind = DataKind> extends DataBounds {
  readonly kind: K;
  readonly dims: readonly Size[];
  readonly integer: boolean;
}

/** A model's data declaration, by key. */
export type DataSpec = Readonly<Record<string, DataField>>;

/**
 * What `build` receives for each data field: int scalars as numbers (so they can size
 * parameters), everything else as a `data` node of the declared shape.
 */
export type DataValues<S extends DataSpec> = {
  readonly [K in keyof S]: S[K] extends DataField<"int"> ? number : Node;
};

/** Options of data.array: bounds, and `int` for integer arrays. */
export interface ArrayOptions extends DataBounds {
  int?: boolean;
}

// The declarations are called from model files, where nothing type-checks them: each argument is
// checked here, so that a mistake is a ModelError at the declaration's line, not a bound or size
// silently ignored.
function field<K extends DataKind>(kind: K, dims: readonly Size[], integer: boolean, bounds: DataBounds = {}, known: readonly string[] = ["lower", "upper"]): DataField<K> {
  const what = `data.${DECLARATION[kind]}`;
  for (const d of dims) {
    if (typeof d === "string" ? d.length === 0 : !(typeof d === "number" && Number.isInteger(d) && d >= 0)) {
      throw new ModelError(`${what}: a size must be a non-negative integer or the name of an int data field, got ${describeValue(d)}`);
    }
  }
  if (typeof bounds !== "object" || bounds === null || Array.isArray(bounds)) {
    throw new ModelError(`${what}: the options must be an object such as { lower: 0 }, got ${describeValue(bounds)}`);
  }
  for (const k of Object.keys(bounds)) {
    if (!known.includes(k)) throw new ModelError(`${what}: unknown option '${k}'; the options are ${known.join(", ")}`);
  }
  return { kind, dims: [...dims], integer, ...pickBounds(what, bounds) };
}

const DECLARATION: Readonly<Record<DataKind, string>> = { int: "int", real: "real", vector: "vector", int_vector: "intVector", matrix: "matrix", array: "array" };

function pickBounds(what: string, b: DataBounds): DataBounds {
  const out: DataBounds = {};
  for (const side of ["lower", "upper"] as const) {
    const v: unknown = b[side];
    if (v === undefined) continue;
    if (!((typeof v === "number" && !Number.isNaN(v)) || (typeof v === "string" && v.length > 0))) {
      throw new ModelError(`${what}: '${side}' must be a number or the name of a scalar data field (such as "G"), got ${describeValue(v)}`);
    }
    out[side] = v;
  }
  if (typeof out.lower === "number" && typeof out.upper === "number" && out.lower > out.upper) {
    throw new ModelError(`${what}: lower (${out.lower}) is above upper (${out.upper})`);
  }
  return out;
}


/** Data field declarations, Stan's data block in TypeScript. */
export const data = {
  /** An integer scalar (usable as a size). */
  int: (bounds?: DataBounds): DataField<"int"> => field("int", [], true, bounds),
  /** A real scalar. */
  real: (bounds?: DataBounds): DataField<"real"> => field("real", [], false, bounds),
  /** A vector of `length` reals. */
  vector: (length: Size, bounds?: DataBounds): DataField<"vector"> => field("vector", [length], false, bounds),
  /** A vector of `length` integers. */
  intVector: (length: Size, bounds?: DataBounds): DataField<"int_vector"> => field("int_vector", [length], true, bounds),
  /** A rows × cols matrix of reals, given in JSON as an array of rows. */
  matrix: (rows: Size, cols: Size, bounds?: DataBounds): DataField<"matrix"> => field("matrix", [rows, cols], false, bounds),
  /** A nested array of any rank; a trailing options object gives bounds and `int: true` for integers. */
  array: (...args: (Size | ArrayOptions)[]): DataField<"array"> => {
    const last = args[args.length - 1];
    const opts: ArrayOptions = typeof last === "object" && last !== null ? last : {};
    const dims = (typeof last === "object" && last !== null ? args.slice(0, -1) : args) as Size[];
    if (opts.int !== undefined && typeof opts.int !== "boolean") throw new ModelError(`data.array: 'int' must be true or false, got ${describeValue(opts.int)}`);
    const bounds = Object.fromEntries(Object.entries(opts).filter(([k]) => k !== "int")) as DataBounds;
    return field("array", dims, opts.int ?? false, bounds, ["lower", "upper", "int"]);
  },
};

/** Human-readable description of a field, for messages: "a vector of J reals". */
export function describeField(f: DataField): string {
  const what = f.integer ? "integers" : "reals";
  const bounds =
    f.lower !== undefined && f.upper !== undefined ? ` in [${f.lower}, ${f.upper}]`
    : f.lower !== undefined ? ` ≥ ${f.lower}`
    : f.upper !== undefined ? ` ≤ ${f.upper}`
    : "";
  if (f.dims.length === 0) return `${f.integer ? "an integer" : "a real number"}${bounds}`;
  return `${f.dims.length === 1 ? "a vector" : f.dims.length === 2 ? "a matrix" : "an array"} of ${f.dims.join(" × ")} ${what}${bounds}`;
}

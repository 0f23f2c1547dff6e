import type { Node } from "@ppl/tensor";

/** A size: a number, or the name of an int data field whose value gives it. */
export type Size = string | number;

/** Optional bounds checked on every entry of a data field. */
export interface DataBounds {
  lower?: number;
  upper?: number;
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

function field<K extends DataKind>(kind: K, dims: readonly Size[], integer: boolean, bounds: DataBounds = {}): DataField<K> {
  return { kind, dims: [...dims], integer, ...pickBounds(bounds) };
}

function pickBounds(b: DataBounds): DataBounds {
  const out: DataBounds = {};
  if (b.lower !== undefined) out.lower = b.lower;
  if (b.upper !== undefined) out.upper = b.upper;
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
    const dims = (typeof last === "object" ? args.slice(0, -1) : args) as Size[];
    return field("array", dims, opts.int ?? false, opts);
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

import type { BaseKind, DeclType } from "../syntax/ast.ts";

/** The base of a Stan type as expressions have it (constraints do not change it: a simplex is a vector). */
export type Base = "int" | "real" | "complex" | "vector" | "row_vector" | "matrix" | "string" | "void";

/** A Stan type: a base and a number of array dimensions; `unknown` where an error was already reported. */
export type SType = { readonly base: Base; readonly dims: number } | { readonly base: "unknown"; readonly dims: 0 };

/** Constructs an SType. */
export const ty = (base: Base, dims = 0): SType => ({ base, dims });
export const INT = ty("int");
export const REAL = ty("real");
export const VECTOR = ty("vector");
export const ROW_VECTOR = ty("row_vector");
export const MATRIX = ty("matrix");
export const UNKNOWN: SType = { base: "unknown", dims: 0 };

/** Prints a type as Stan writes it: array[,] real, vector. */
export function showType(t: SType): string {
  if (t.base === "unknown") return "an unknown type";
  return t.dims > 0 ? `array[${",".repeat(t.dims - 1)}] ${t.base}` : t.base;
}

/** The expression base of a declared base kind. */
export function baseOf(kind: BaseKind): Base {
  switch (kind) {
    case "int": return "int";
    case "real": return "real";
    case "complex": return "complex";
    case "vector": case "simplex": case "unit_vector": case "sum_to_zero_vector": case "ordered": case "positive_ordered": return "vector";
    case "row_vector": return "row_vector";
    case "complex_vector": case "complex_row_vector": case "complex_matrix": return "complex";
    default: return "matrix";
  }
}

/** The type of a declared variable. */
export function declaredType(t: DeclType): SType {
  return ty(baseOf(t.base), t.arrayDims.length);
}

export const isScalar = (t: SType) => t.dims === 0 && (t.base === "int" || t.base === "real");
export const isInt = (t: SType) => t.dims === 0 && t.base === "int";
export const isVectorLike = (t: SType) => t.dims === 0 && (t.base === "vector" || t.base === "row_vector");
export const isContainer = (t: SType) => t.dims > 0 || t.base === "vector" || t.base === "row_vector" || t.base === "matrix";
export const isUnknown = (t: SType) => t.base === "unknown";
/** True for a type holding reals or ints only (scalars, vectors, matrices and arrays of them). */
export const isNumeric = (t: SType) => t.base === "int" || t.base === "real" || t.base === "vector" || t.base === "row_vector" || t.base === "matrix";

/** Whether a value of type `from` may be assigned to a variable of type `to` (int promotes to real, arrays elementwise). */
export function assignable(to: SType, from: SType): boolean {
  if (isUnknown(to) || isUnknown(from)) return true;
  if (to.dims !== from.dims) return false;
  return to.base === from.base || (to.base === "real" && from.base === "int") || (to.base === "complex" && (from.base === "int" || from.base === "real"));
}

/** The common type of two branches or elements (int and real give real), or undefined. */
export function join(a: SType, b: SType): SType | undefined {
  if (isUnknown(a)) return b;
  if (isUnknown(b)) return a;
  if (assignable(a, b)) return a;
  if (assignable(b, a)) return b;
  return undefined;
}

/** The type after indexing with `singles` single indices and `multis` multi-indices (ranges, int arrays), or an error. */
export function indexedType(t: SType, kinds: readonly ("single" | "multi")[]): SType | string {
  if (isUnknown(t)) return UNKNOWN;
  let dims = t.dims;
  let base = t.base;
  let k = 0;
  let keptArrayDims = 0;
  for (; k < kinds.length && k < t.dims; k++) if (kinds[k] === "multi") keptArrayDims++;
  dims = keptArrayDims + (t.dims - Math.min(t.dims, kinds.length));
  const rest = kinds.slice(Math.min(kinds.length, t.dims));
  if (rest.length === 0) return ty(base, dims);
  if (base === "vector" || base === "row_vector") {
    if (rest.length > 1) return `too many indices for ${showType(t)}`;
    return rest[0] === "single" ? ty("real", dims) : ty(base, dims);
  }
  if (base === "matrix") {
    if (rest.length > 2) return `too many indices for ${showType(t)}`;
    const [r, c] = [rest[0], rest[1] ?? "multi"];
    if (r === "single" && c === "single") base = "real";
    else if (r === "single") base = "row_vector";
    else if (c === "single") base = "vector";
    return ty(base, dims);
  }
  return `too many indices for ${showType(t)}`;
}

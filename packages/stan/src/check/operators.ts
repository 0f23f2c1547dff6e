import type { BinaryOp } from "../syntax/ast.ts";
import { INT, MATRIX, REAL, ROW_VECTOR, VECTOR, isScalar, isUnknown, showType, UNKNOWN, type SType } from "./types.ts";

const same = (a: SType, b: SType) => a.base === b.base && a.dims === b.dims;
const mat = (t: SType) => t.dims === 0 && (t.base === "vector" || t.base === "row_vector" || t.base === "matrix");

/** The type of `a op b` under Stan's rules, or an error message. */
export function binaryType(op: BinaryOp, a: SType, b: SType): SType | string {
  if (isUnknown(a) || isUnknown(b)) return UNKNOWN;
  const both = `${showType(a)} and ${showType(b)}`;
  switch (op) {
    case "&&": case "||": case "==": case "!=": case "<": case "<=": case ">": case ">=":
      return isScalar(a) && isScalar(b) ? INT : `compares numbers only, found ${both}`;
    case "%": case "%/%":
      return a.base === "int" && b.base === "int" && a.dims === 0 && b.dims === 0 ? INT : `takes ints, found ${both}`;
    case "+": case "-":
      if (isScalar(a) && isScalar(b)) return a.base === "int" && b.base === "int" ? INT : REAL;
      if (isScalar(a) && mat(b)) return b;
      if (mat(a) && (isScalar(b) || same(a, b))) return a;
      return `cannot add or subtract ${both}`;
    case "*": return product(a, b, both);
    case "/":
      if (isScalar(a) && isScalar(b)) return a.base === "int" && b.base === "int" ? INT : REAL;
      if (mat(a) && isScalar(b)) return a;
      if ((a.base === "row_vector" || a.base === "matrix") && a.dims === 0 && b.base === "matrix" && b.dims === 0) return a;
      return `cannot divide ${both}`;
    case "\\":
      return a.base === "matrix" && a.dims === 0 && (b.base === "vector" || b.base === "matrix") && b.dims === 0 ? b : `left division takes a matrix and a vector or matrix, found ${both}`;
    case ".*": case "./":
      if (mat(a) && same(a, b)) return a;
      if (mat(a) && isScalar(b)) return a;
      if (isScalar(a) && mat(b)) return b;
      if (isScalar(a) && isScalar(b)) return REAL;
      return `elementwise operations take equal types, found ${both}`;
    case "^": case ".^":
      if (isScalar(a) && isScalar(b)) return REAL;
      if (op === ".^" && (mat(a) || mat(b)) && (isScalar(a) || isScalar(b) || same(a, b))) return mat(a) ? a : b;
      return `takes numbers, found ${both}`;
  }
}

function product(a: SType, b: SType, both: string): SType | string {
  if (isScalar(a) && isScalar(b)) return a.base === "int" && b.base === "int" ? INT : REAL;
  if (isScalar(a) && mat(b)) return b;
  if (mat(a) && isScalar(b)) return a;
  if (!mat(a) || !mat(b)) return `cannot multiply ${both}`;
  const key = `${a.base}*${b.base}`;
  switch (key) {
    case "row_vector*vector": return REAL;
    case "vector*row_vector": return MATRIX;
    case "matrix*vector": return VECTOR;
    case "row_vector*matrix": return ROW_VECTOR;
    case "matrix*matrix": return MATRIX;
    default: return `cannot multiply ${both} (use .* for elementwise products)`;
  }
}

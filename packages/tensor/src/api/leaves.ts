import type { DType } from "../ir/dtype.ts";
import { DTypeError, ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { fmt, sizeOf, type Shape } from "../ir/shape.ts";

/** A value a graph reads: a node, or a JS number that becomes a scalar constant. */
export type Operand = Node | number;

/** A named input whose value is a model parameter, bound at run time. */
export function param(name: string, shape: Shape = [], dtype: DType = "f64"): Node {
  return Node.make("param", dtype, shape, [], { name });
}

/** A named input whose value is data, bound at run time and shared by all chains. */
export function data(name: string, shape: Shape = [], dtype: DType = "f64"): Node {
  return Node.make("data", dtype, shape, [], { name });
}

/** A constant: a scalar filling `shape`, or row-major values of that shape. */
export function constant(value: number | ArrayLike<number>, shape: Shape = [], dtype: DType = "f64"): Node {
  if (typeof value === "number") return Node.make("const", dtype, shape, [], { value: roundTo(dtype, value) });
  const arr = Float64Array.from(value, (v) => roundTo(dtype, v));
  if (arr.length !== sizeOf(shape)) {
    throw new ShapeError(`constant: ${arr.length} values do not fill shape ${fmt(shape)}`);
  }
  // A constant whose values are all equal is stored as a fill, so folding and codegen see a scalar.
  if (arr.length > 0 && arr.every((v) => Object.is(v, arr[0]))) return Node.make("const", dtype, shape, [], { value: arr[0]! });
  return Node.make("const", dtype, shape, [], { value: arr });
}

/** A placeholder for the index-th argument of a scan body at nesting `depth` (so nested bodies never confuse their args). */
export function arg(index: number, shape: Shape, dtype: DType, depth = 0): Node {
  return Node.make("arg", dtype, shape, [], { index, depth });
}

/** Turn an operand into a node; numbers become scalar constants of `dtype`. */
export function lift(x: Operand, dtype: DType = "f64"): Node {
  if (typeof x === "number") return constant(x, [], dtype);
  checkOperand("an operand", x);
  return x;
}

/** True for a number or a node (recognised by its fields, so that a node of another copy of this package counts). */
export function isOperand(x: unknown): x is Operand {
  if (typeof x === "number") return true;
  if (typeof x !== "object" || x === null) return false;
  const n = x as { op?: unknown; shape?: unknown; dtype?: unknown };
  return typeof n.op === "string" && Array.isArray(n.shape) && typeof n.dtype === "string";
}

/**
 * Throws a DTypeError unless `x` is a number or a node: model files often run without a type
 * check, and a string or an array passed where a tensor goes would otherwise fail deep inside with
 * a TypeError. Nodes are recognised by their fields: a model file may load its own copy of this package.
 */
export function checkOperand(op: string, x: unknown): asserts x is Operand {
  if (isOperand(x)) return;
  const what = x === null ? "null" : x === undefined ? "undefined" : typeof x === "string" ? `the string ${JSON.stringify(x.length > 20 ? `${x.slice(0, 20)}…` : x)}` : Array.isArray(x) ? `an array of ${x.length} (make it a tensor with constant([...], [n]))` : typeof x === "object" ? "an object" : `${typeof x} ${String(x)}`;
  throw new DTypeError(`${op}: expected a number or a tensor, got ${what}`);
}

function roundTo(dtype: DType, v: number): number {
  switch (dtype) {
    case "f32": return Math.fround(v);
    case "i32": return v | 0;
    case "bool": return v ? 1 : 0;
    default: return v;
  }
}

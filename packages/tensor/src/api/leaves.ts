import type { DType } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
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
  return typeof x === "number" ? constant(x, [], dtype) : x;
}

function roundTo(dtype: DType, v: number): number {
  switch (dtype) {
    case "f32": return Math.fround(v);
    case "i32": return v | 0;
    case "bool": return v ? 1 : 0;
    default: return v;
  }
}

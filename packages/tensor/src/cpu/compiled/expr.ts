import type { DType } from "../../ir/dtype.ts";
import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { isBinary, isCompare, isUnary, OP_TRAITS, type BinaryOp, type CompareOp, type Op, type UnaryOp } from "../../ir/ops.ts";
import { BINARY_SOURCES, UNARY_SOURCES } from "../scalar.ts";

/**
 * JavaScript expressions for every elementwise op. Each must compute exactly what the matching
 * function in cpu/scalar.ts computes (the reference interpreter calls those): the unary, binary
 * and comparison ops' expressions are written there beside those functions (simple ops inlined
 * with the same formula, special functions called through `F`, bound to scalar.ts).
 */

/** A number as JavaScript source that reads back as the same double (NaN, ±Infinity and -0 included). */
export function literal(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (Object.is(v, -0)) return "(-0)";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "(-Infinity)";
  return v < 0 ? `(${String(v)})` : String(v);
}

// Typed by op: an op added to the IR without its kernel in cpu/scalar.ts fails to compile.
const UNARY_JS: Record<UnaryOp, (a: string) => string> = UNARY_SOURCES;
const BINARY_JS: Record<BinaryOp | CompareOp, (a: string, b: string) => string> = BINARY_SOURCES;

/** The unrounded value of an elementwise node whose inputs are the JS operands `args` (names or literals). */
export function elementwiseExpr(node: Node, args: readonly string[]): string {
  const op = node.op;
  const [a, b, c] = args as [string, string, string];
  if (isUnary(op)) return UNARY_JS[op](a);
  if (isBinary(op) || isCompare(op)) return BINARY_JS[op](a, b);
  if (op === "select") return `(${a} ? ${b} : ${c})`;
  if (op === "cast") return a;
  if (op === "polygamma") return `F.polygamma(${node.attrs.order!}, ${a})`;
  if (op === "betainc") return `F.betainc(${a}, ${b}, ${c})`;
  if (op === "betainc_grad") return `F.betaincGrad(${a}, ${b}, ${c}, ${node.attrs.wrt!})`;
  throw new GraphError(`compiled CPU: '${op}' is not elementwise`);
}

/** Round an expression to what `dtype` holds, as roundInPlace does in the reference (ops that already yield 0/1 are left alone). */
export function roundExpr(dtype: DType, e: string, op?: Op): string {
  switch (dtype) {
    case "f32": return `Math.fround(${e})`;
    case "i32": return `(${e}) | 0`;
    case "bool": return op !== undefined && OP_TRAITS[op].computes === "bool" ? e : `(${e} ? 1 : 0)`;
    default: return e;
  }
}

/** The same rounding applied to a compile-time number. */
export function roundValue(dtype: DType, v: number): number {
  switch (dtype) {
    case "f32": return Math.fround(v);
    case "i32": return v | 0;
    case "bool": return v ? 1 : 0;
    default: return v;
  }
}

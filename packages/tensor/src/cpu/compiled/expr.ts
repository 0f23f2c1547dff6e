import type { DType } from "../../ir/dtype.ts";
import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { isBinary, isCompare, isUnary, OP_TRAITS, type BinaryOp, type CompareOp, type Op, type UnaryOp } from "../../ir/ops.ts";

/**
 * JavaScript expressions for every elementwise op. Each must compute exactly what the matching
 * function in cpu/scalar.ts computes (the reference interpreter calls those), so simple ops are
 * inlined with the same formula and special functions are called through `F` (bound to scalar.ts).
 */

/** A number as JavaScript source that reads back as the same double (NaN, ±Infinity and -0 included). */
export function literal(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (Object.is(v, -0)) return "(-0)";
  if (v === Infinity) return "Infinity";
  if (v === -Infinity) return "(-Infinity)";
  return v < 0 ? `(${String(v)})` : String(v);
}

// Typed by op: an op added to the IR without its JavaScript here fails to compile.
const UNARY_JS: Record<UnaryOp, (a: string) => string> = {
  neg: (a) => `-${a}`,
  abs: (a) => `Math.abs(${a})`,
  sign: (a) => `(${a} > 0 ? 1 : ${a} < 0 ? -1 : ${a})`,
  exp: (a) => `Math.exp(${a})`,
  expm1: (a) => `Math.expm1(${a})`,
  log: (a) => `Math.log(${a})`,
  log1p: (a) => `Math.log1p(${a})`,
  sqrt: (a) => `Math.sqrt(${a})`,
  rsqrt: (a) => `1 / Math.sqrt(${a})`,
  square: (a) => `${a} * ${a}`,
  reciprocal: (a) => `1 / ${a}`,
  sin: (a) => `Math.sin(${a})`,
  cos: (a) => `Math.cos(${a})`,
  tanh: (a) => `Math.tanh(${a})`,
  sigmoid: (a) => `F.sigmoid(${a})`,
  softplus: (a) => `F.softplus(${a})`,
  log_sigmoid: (a) => `-F.softplus(-${a})`,
  erf: (a) => `F.erf(${a})`,
  erfc: (a) => `F.erfc(${a})`,
  lgamma: (a) => `F.lgamma(${a})`,
  inv_phi: (a) => `F.invPhi(${a})`,
  floor: (a) => `Math.floor(${a})`,
  ceil: (a) => `Math.ceil(${a})`,
  not: (a) => `(${a} ? 0 : 1)`,
  is_nan: (a) => `(${a} !== ${a} ? 1 : 0)`,
  is_finite: (a) => `(Number.isFinite(${a}) ? 1 : 0)`,
  stop_gradient: (a) => a,
};

const BINARY_JS: Record<BinaryOp | CompareOp, (a: string, b: string) => string> = {
  add: (a, b) => `${a} + ${b}`,
  sub: (a, b) => `${a} - ${b}`,
  mul: (a, b) => `${a} * ${b}`,
  div: (a, b) => `${a} / ${b}`,
  pow: (a, b) => `Math.pow(${a}, ${b})`,
  max: (a, b) => `(${a} >= ${b} || ${a} !== ${a} ? ${a} : ${b})`,
  min: (a, b) => `(${a} <= ${b} || ${a} !== ${a} ? ${a} : ${b})`,
  atan2: (a, b) => `Math.atan2(${a}, ${b})`,
  mod: (a, b) => `F.mod(${a}, ${b})`,
  gamma_p: (a, b) => `F.gammaP(${a}, ${b})`,
  gamma_q: (a, b) => `F.gammaQ(${a}, ${b})`,
  gamma_p_da: (a, b) => `F.gammaPDa(${a}, ${b})`,
  owens_t: (a, b) => `F.owensT(${a}, ${b})`,
  quotient: (a, b) => `F.quotient(${a}, ${b})`,
  remainder: (a, b) => `F.remainder(${a}, ${b})`,
  bit_and: (a, b) => `(${a} & ${b})`,
  bit_or: (a, b) => `(${a} | ${b})`,
  bit_xor: (a, b) => `(${a} ^ ${b})`,
  shift_left: (a, b) => `(${a} << (${b} & 31))`,
  shift_right: (a, b) => `(${a} >> (${b} & 31))`,
  lt: (a, b) => `(${a} < ${b} ? 1 : 0)`,
  le: (a, b) => `(${a} <= ${b} ? 1 : 0)`,
  gt: (a, b) => `(${a} > ${b} ? 1 : 0)`,
  ge: (a, b) => `(${a} >= ${b} ? 1 : 0)`,
  eq: (a, b) => `(${a} === ${b} ? 1 : 0)`,
  ne: (a, b) => `(${a} !== ${b} ? 1 : 0)`,
  and: (a, b) => `(${a} && ${b} ? 1 : 0)`,
  or: (a, b) => `(${a} || ${b} ? 1 : 0)`,
};

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

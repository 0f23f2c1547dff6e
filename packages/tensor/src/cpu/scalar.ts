import gammaln from "@stdlib/math-base-special-gammaln";
import digammaFn from "@stdlib/math-base-special-digamma";
import trigammaFn from "@stdlib/math-base-special-trigamma";
import polygammaFn from "@stdlib/math-base-special-polygamma";
import erfFn from "@stdlib/math-base-special-erf";
import erfcFn from "@stdlib/math-base-special-erfc";
import type { BinaryOp, CompareOp, UnaryOp } from "../ir/ops.ts";
import { gammaP, gammaPDa, gammaQ, invPhi, owensT } from "./special.ts";

/**
 * Scalar math for every elementwise op, in f64. The reference interpreter and the compiled
 * JavaScript path both call these, so the two CPU paths cannot disagree on special functions.
 * Special functions come from stdlib (well-tested implementations with documented accuracy).
 */

/** log(1 + exp(x)) without overflow. */
export function softplus(x: number): number {
  return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
}

/** 1 / (1 + exp(-x)) without overflow. */
export function sigmoid(x: number): number {
  if (x >= 0) return 1 / (1 + Math.exp(-x));
  const e = Math.exp(x);
  return e / (1 + e);
}

/** The ops whose value the compiled path finishes from a shared exp(−|x|) of their operand (see {@link EXP_SHARING}). */
export type ExpSharingOp = "softplus" | "sigmoid" | "log_sigmoid";

/**
 * softplus, sigmoid and log_sigmoid of x each take exp(−|x|): their branches above call exp(−x)
 * for x > 0 and exp(x) otherwise, which is that value. The compiled path computes it once per
 * operand in a loop body (a density's likelihood takes both the softplus and the sigmoid of the
 * same linear predictor) and finishes each op from it with these expressions, `a` the operand
 * and `e` its exp(−|a|): the same operations on the same values as the functions, so the same
 * bits (tested over all doubles' classes).
 */
export const EXP_SHARING: Readonly<Record<ExpSharingOp, (a: string, e: string) => string>> = {
  softplus: (a, e) => `(${a} > 0 ? ${a} + Math.log1p(${e}) : Math.log1p(${e}))`,
  sigmoid: (a, e) => `(${a} >= 0 ? 1 / (1 + ${e}) : ${e} / (1 + ${e}))`,
  // −softplus(−a); exp(−|−a|) is exp(−|a|).
  log_sigmoid: (a, e) => `-(-${a} > 0 ? -${a} + Math.log1p(${e}) : Math.log1p(${e}))`,
};

/** The shared value of {@link EXP_SHARING}: exp(−|a|) as JavaScript. */
export const sharedExpSource = (a: string): string => `Math.exp(-Math.abs(${a}))`;

/** n-th derivative of digamma. */
export function polygamma(n: number, x: number): number {
  if (n === 0) return digammaFn(x);
  if (n === 1) return trigammaFn(x);
  return polygammaFn(n, x);
}

/** Python-style remainder (sign of the divisor). */
export function mod(a: number, b: number): number {
  const r = a % b;
  return r !== 0 && (r < 0) !== (b < 0) ? r + b : r;
}

/**
 * An elementwise op's CPU kernel, written once: its f64 function (what the reference interpreter
 * calls) and the same computation as a JavaScript expression of its operands' source (what the
 * compiled path inlines; special functions are called there through `F`, which binds these very
 * functions by their camel-cased op names). The two forms sit side by side so that they cannot
 * drift apart; the conformance suite checks the compiled path against the interpreter.
 */
interface ScalarKernel<A extends number[]> {
  readonly f: (...args: A) => number;
  readonly js: (...args: { [K in keyof A]: string }) => string;
}

const UNARY_KERNELS: Record<UnaryOp, ScalarKernel<[number]>> = {
  neg: { f: (x) => -x, js: (a) => `-${a}` },
  abs: { f: Math.abs, js: (a) => `Math.abs(${a})` },
  sign: { f: (x) => (x > 0 ? 1 : x < 0 ? -1 : x), js: (a) => `(${a} > 0 ? 1 : ${a} < 0 ? -1 : ${a})` },
  exp: { f: Math.exp, js: (a) => `Math.exp(${a})` },
  expm1: { f: Math.expm1, js: (a) => `Math.expm1(${a})` },
  log: { f: Math.log, js: (a) => `Math.log(${a})` },
  log1p: { f: Math.log1p, js: (a) => `Math.log1p(${a})` },
  sqrt: { f: Math.sqrt, js: (a) => `Math.sqrt(${a})` },
  rsqrt: { f: (x) => 1 / Math.sqrt(x), js: (a) => `1 / Math.sqrt(${a})` },
  square: { f: (x) => x * x, js: (a) => `${a} * ${a}` },
  reciprocal: { f: (x) => 1 / x, js: (a) => `1 / ${a}` },
  sin: { f: Math.sin, js: (a) => `Math.sin(${a})` },
  cos: { f: Math.cos, js: (a) => `Math.cos(${a})` },
  tanh: { f: Math.tanh, js: (a) => `Math.tanh(${a})` },
  sigmoid: { f: sigmoid, js: (a) => `F.sigmoid(${a})` },
  softplus: { f: softplus, js: (a) => `F.softplus(${a})` },
  log_sigmoid: { f: (x) => -softplus(-x), js: (a) => `-F.softplus(-${a})` },
  erf: { f: erfFn, js: (a) => `F.erf(${a})` },
  erfc: { f: erfcFn, js: (a) => `F.erfc(${a})` },
  lgamma: { f: gammaln, js: (a) => `F.lgamma(${a})` },
  inv_phi: { f: invPhi, js: (a) => `F.invPhi(${a})` },
  floor: { f: Math.floor, js: (a) => `Math.floor(${a})` },
  ceil: { f: Math.ceil, js: (a) => `Math.ceil(${a})` },
  not: { f: (x) => (x ? 0 : 1), js: (a) => `(${a} ? 0 : 1)` },
  is_nan: { f: (x) => (Number.isNaN(x) ? 1 : 0), js: (a) => `(${a} !== ${a} ? 1 : 0)` },
  is_finite: { f: (x) => (Number.isFinite(x) ? 1 : 0), js: (a) => `(Number.isFinite(${a}) ? 1 : 0)` },
  stop_gradient: { f: (x) => x, js: (a) => a },
};

const BINARY_KERNELS: Record<BinaryOp, ScalarKernel<[number, number]>> = {
  add: { f: (a, b) => a + b, js: (a, b) => `${a} + ${b}` },
  sub: { f: (a, b) => a - b, js: (a, b) => `${a} - ${b}` },
  mul: { f: (a, b) => a * b, js: (a, b) => `${a} * ${b}` },
  div: { f: (a, b) => a / b, js: (a, b) => `${a} / ${b}` },
  pow: { f: Math.pow, js: (a, b) => `Math.pow(${a}, ${b})` },
  max: { f: (a, b) => (a >= b || Number.isNaN(a) ? a : b), js: (a, b) => `(${a} >= ${b} || ${a} !== ${a} ? ${a} : ${b})` },
  min: { f: (a, b) => (a <= b || Number.isNaN(a) ? a : b), js: (a, b) => `(${a} <= ${b} || ${a} !== ${a} ? ${a} : ${b})` },
  atan2: { f: Math.atan2, js: (a, b) => `Math.atan2(${a}, ${b})` },
  mod: { f: mod, js: (a, b) => `F.mod(${a}, ${b})` },
  gamma_p: { f: gammaP, js: (a, b) => `F.gammaP(${a}, ${b})` },
  gamma_q: { f: gammaQ, js: (a, b) => `F.gammaQ(${a}, ${b})` },
  gamma_p_da: { f: gammaPDa, js: (a, b) => `F.gammaPDa(${a}, ${b})` },
  owens_t: { f: owensT, js: (a, b) => `F.owensT(${a}, ${b})` },
  // i32 operands (as doubles) only; `| 0` wraps the one overflow, −2³¹ %/ −1, and turns −0 into 0.
  quotient: { f: (a, b) => (b === 0 ? 0 : Math.trunc(a / b) | 0), js: (a, b) => `F.quotient(${a}, ${b})` },
  remainder: { f: (a, b) => (b === 0 ? a : (a % b) | 0), js: (a, b) => `F.remainder(${a}, ${b})` },
  bit_and: { f: (a, b) => a & b, js: (a, b) => `(${a} & ${b})` },
  bit_or: { f: (a, b) => a | b, js: (a, b) => `(${a} | ${b})` },
  bit_xor: { f: (a, b) => a ^ b, js: (a, b) => `(${a} ^ ${b})` },
  shift_left: { f: (a, b) => a << (b & 31), js: (a, b) => `(${a} << (${b} & 31))` },
  shift_right: { f: (a, b) => a >> (b & 31), js: (a, b) => `(${a} >> (${b} & 31))` },
};

const COMPARE_KERNELS: Record<CompareOp, ScalarKernel<[number, number]>> = {
  lt: { f: (a, b) => (a < b ? 1 : 0), js: (a, b) => `(${a} < ${b} ? 1 : 0)` },
  le: { f: (a, b) => (a <= b ? 1 : 0), js: (a, b) => `(${a} <= ${b} ? 1 : 0)` },
  gt: { f: (a, b) => (a > b ? 1 : 0), js: (a, b) => `(${a} > ${b} ? 1 : 0)` },
  ge: { f: (a, b) => (a >= b ? 1 : 0), js: (a, b) => `(${a} >= ${b} ? 1 : 0)` },
  eq: { f: (a, b) => (a === b ? 1 : 0), js: (a, b) => `(${a} === ${b} ? 1 : 0)` },
  ne: { f: (a, b) => (a !== b ? 1 : 0), js: (a, b) => `(${a} !== ${b} ? 1 : 0)` },
  and: { f: (a, b) => (a && b ? 1 : 0), js: (a, b) => `(${a} && ${b} ? 1 : 0)` },
  or: { f: (a, b) => (a || b ? 1 : 0), js: (a, b) => `(${a} || ${b} ? 1 : 0)` },
};

const functions = <K extends string, A extends number[]>(kernels: Record<K, ScalarKernel<A>>) =>
  Object.fromEntries(Object.entries<ScalarKernel<A>>(kernels).map(([op, k]) => [op, k.f])) as Record<K, (...args: A) => number>;
const sources = <K extends string, A extends number[]>(kernels: Record<K, ScalarKernel<A>>) =>
  Object.fromEntries(Object.entries<ScalarKernel<A>>(kernels).map(([op, k]) => [op, k.js])) as Record<K, ScalarKernel<A>["js"]>;

/** Each unary op's f64 function. */
export const UNARY: Record<UnaryOp, (x: number) => number> = functions(UNARY_KERNELS);
/** Each binary op's f64 function. */
export const BINARY: Record<BinaryOp, (a: number, b: number) => number> = functions(BINARY_KERNELS);
/** Each comparison's f64 function (1 or 0). */
export const COMPARE: Record<CompareOp, (a: number, b: number) => number> = functions(COMPARE_KERNELS);

/** Each unary op's JavaScript expression of its operand's source (the compiled path's UNARY_JS). */
export const UNARY_SOURCES: Record<UnaryOp, (a: string) => string> = sources(UNARY_KERNELS);
/** Each binary op's and comparison's JavaScript expression of its operands' sources. */
export const BINARY_SOURCES: Record<BinaryOp | CompareOp, (a: string, b: string) => string> = { ...sources(BINARY_KERNELS), ...sources(COMPARE_KERNELS) };


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

export const UNARY: Record<UnaryOp, (x: number) => number> = {
  neg: (x) => -x,
  abs: Math.abs,
  sign: (x) => (x > 0 ? 1 : x < 0 ? -1 : x),
  exp: Math.exp,
  expm1: Math.expm1,
  log: Math.log,
  log1p: Math.log1p,
  sqrt: Math.sqrt,
  rsqrt: (x) => 1 / Math.sqrt(x),
  square: (x) => x * x,
  reciprocal: (x) => 1 / x,
  sin: Math.sin,
  cos: Math.cos,
  tanh: Math.tanh,
  sigmoid,
  softplus,
  log_sigmoid: (x) => -softplus(-x),
  erf: erfFn,
  erfc: erfcFn,
  lgamma: gammaln,
  inv_phi: invPhi,
  floor: Math.floor,
  ceil: Math.ceil,
  not: (x) => (x ? 0 : 1),
  is_nan: (x) => (Number.isNaN(x) ? 1 : 0),
  is_finite: (x) => (Number.isFinite(x) ? 1 : 0),
  stop_gradient: (x) => x,
};

export const BINARY: Record<BinaryOp, (a: number, b: number) => number> = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  pow: Math.pow,
  max: (a, b) => (a >= b || Number.isNaN(a) ? a : b),
  min: (a, b) => (a <= b || Number.isNaN(a) ? a : b),
  atan2: Math.atan2,
  mod,
  gamma_p: gammaP,
  gamma_q: gammaQ,
  gamma_p_da: gammaPDa,
  owens_t: owensT,
  // i32 operands (as doubles) only; `| 0` wraps the one overflow, −2³¹ %/ −1, and turns −0 into 0.
  quotient: (a, b) => (b === 0 ? 0 : Math.trunc(a / b) | 0),
  remainder: (a, b) => (b === 0 ? a : (a % b) | 0),
  bit_and: (a, b) => a & b,
  bit_or: (a, b) => a | b,
  bit_xor: (a, b) => a ^ b,
  shift_left: (a, b) => a << (b & 31),
  shift_right: (a, b) => a >> (b & 31),
};

export const COMPARE: Record<CompareOp, (a: number, b: number) => number> = {
  lt: (a, b) => (a < b ? 1 : 0),
  le: (a, b) => (a <= b ? 1 : 0),
  gt: (a, b) => (a > b ? 1 : 0),
  ge: (a, b) => (a >= b ? 1 : 0),
  eq: (a, b) => (a === b ? 1 : 0),
  ne: (a, b) => (a !== b ? 1 : 0),
  and: (a, b) => (a && b ? 1 : 0),
  or: (a, b) => (a || b ? 1 : 0),
};

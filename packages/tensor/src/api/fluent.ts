import type { DType } from "../ir/dtype.ts";
import { Node } from "../ir/node.ts";
import { at, col, log10, range, row } from "./convenience.ts";
import {
  abs, add, and, atan2, bitAnd, bitNot, bitOr, bitXor, cast, ceil, cos, digamma, div, eq, erf, erfc, exp, expm1, floor, ge, gt,
  invPhi, isFinite, isNan, le, lgamma, log, log1p, logSigmoid, lt, maximum, minimum, mod, mul, ne, neg, not, or, polygamma, pow,
  quotient, reciprocal, remainder, rsqrt, select, shiftLeft, shiftRight, sigmoid, sign, sin, softplus, sqrt, square,
  stopGradient, sub, tanh, trigamma,
} from "./elementwise.ts";
import type { Operand } from "./leaves.ts";
import {
  cholesky, determinant, diagonal, dot, eigenvaluesSym, eigenvectorsSym, inverse, logDeterminant, logdetSpd, matmul, solve,
  triangularSolve,
} from "./linalg.ts";
import { all, any } from "./logical.ts";
import { diagMatrix, kronecker, rep } from "./matrix-build.ts";
import { quadForm, quadFormDiag, traceQuadForm } from "./quad-form.ts";
import { logsumexp, max, mean, min, prod, sum, type Axes } from "./reduce.ts";
import { broadcastTo, cumsum, mT, pad, reshape, transpose } from "./shape-ops.ts";
import { sort } from "./sort.ts";
import { log1mInvLogit, log1pExp, logInvLogit, logSoftmax, logSumExp } from "./log-scale.ts";
import { Phi, log1mExp, logDiffExp, logPhi } from "./special.ts";
import { conv1d, slidingMax, slidingSum } from "./windows.ts";

/**
 * The fluent API: the functional API's functions as methods of Node, so model code reads
 * mu.add(tau.mul(z)) instead of add(mu, mul(tau, z)). Each method is one call of the function of
 * the same name with the node as its first operand; the functions stay the one implementation.
 *
 * How they attach: node.ts cannot import the api files (they import Node, so that would be a
 * cycle), so this file adds them from outside. `declare module` merges the methods' types into
 * the Node class (an interface of the class's name extends FluentMethods below), and the entry
 * (index.ts) imports this file once for its effect of defining them on Node.prototype. The one
 * object below gives both the types (typeof) and the implementations, so the two cannot drift.
 * Inside packages/tensor the sources keep to the functional API: a module there that reached
 * Node without the entry would see the types but not the methods.
 *
 * Positions are 1-based, as in Stan: x.at(1) is the first entry, x.at(0) throws. The functions
 * that take or give 0-based positions (index, slice, gather, putSlice, argmax, argmin, argsort,
 * takeAlongAxis) are functional only, so that every position a method takes counts from 1 and
 * x.at(x.argmax()) cannot be written one off; axis arguments (sum(-1), cumsum(0)) count from 0,
 * as in the functional API and NumPy.
 */
const methods = {
  // Elementwise, one operand.
  /** -x */
  neg(this: Node): Node { return neg(this); },
  /** |x| */
  abs(this: Node): Node { return abs(this); },
  /** Sign of x: -1, 0 or 1. */
  sign(this: Node): Node { return sign(this); },
  /** e^x */
  exp(this: Node): Node { return exp(this); },
  /** e^x − 1, accurate near 0. */
  expm1(this: Node): Node { return expm1(this); },
  /** Natural logarithm. */
  log(this: Node): Node { return log(this); },
  /** log(1 + x), accurate near 0. */
  log1p(this: Node): Node { return log1p(this); },
  /** Base-10 logarithm. */
  log10(this: Node): Node { return log10(this); },
  /** √x */
  sqrt(this: Node): Node { return sqrt(this); },
  /** 1/√x */
  rsqrt(this: Node): Node { return rsqrt(this); },
  /** x² */
  square(this: Node): Node { return square(this); },
  /** 1/x */
  reciprocal(this: Node): Node { return reciprocal(this); },
  /** sin x */
  sin(this: Node): Node { return sin(this); },
  /** cos x */
  cos(this: Node): Node { return cos(this); },
  /** tanh x */
  tanh(this: Node): Node { return tanh(this); },
  /** The logistic function 1/(1 + e^−x) (Stan's inv_logit). */
  sigmoid(this: Node): Node { return sigmoid(this); },
  /** log(1 + e^x) (Stan's log1p_exp). */
  softplus(this: Node): Node { return softplus(this); },
  /** log(sigmoid(x)) (Stan's log_inv_logit). */
  logSigmoid(this: Node): Node { return logSigmoid(this); },
  /** The error function. */
  erf(this: Node): Node { return erf(this); },
  /** 1 − erf(x), accurate in the upper tail. */
  erfc(this: Node): Node { return erfc(this); },
  /** log Γ(x) */
  lgamma(this: Node): Node { return lgamma(this); },
  /** The digamma function ψ(x). */
  digamma(this: Node): Node { return digamma(this); },
  /** The trigamma function ψ′(x). */
  trigamma(this: Node): Node { return trigamma(this); },
  /** The n-th derivative of digamma. */
  polygamma(this: Node, order: number): Node { return polygamma(order, this); },
  /** ⌊x⌋ */
  floor(this: Node): Node { return floor(this); },
  /** ⌈x⌉ */
  ceil(this: Node): Node { return ceil(this); },
  /** Logical not of a bool tensor. */
  not(this: Node): Node { return not(this); },
  /** True where x is NaN. */
  isNan(this: Node): Node { return isNan(this); },
  /** True where x is neither NaN nor ±∞. */
  isFinite(this: Node): Node { return isFinite(this); },
  /** x, with a zero gradient. */
  stopGradient(this: Node): Node { return stopGradient(this); },
  /** The same values in another dtype. */
  cast(this: Node, dtype: DType): Node { return cast(this, dtype); },
  /** Φ(x), the standard normal CDF. */
  Phi(this: Node): Node { return Phi(this); },
  /** log Φ(x), without underflow. */
  logPhi(this: Node): Node { return logPhi(this); },
  /** Φ⁻¹(p), the standard normal quantile. */
  invPhi(this: Node): Node { return invPhi(this); },
  /** log(1 − e^x) for x ≤ 0. */
  log1mExp(this: Node): Node { return log1mExp(this); },
  /** log σ(x), the log of the probability whose logit is x (Stan's log_inv_logit). */
  logInvLogit(this: Node): Node { return logInvLogit(this); },
  /** log(1 − σ(x)), the log of its complement (Stan's log1m_inv_logit). */
  log1mInvLogit(this: Node): Node { return log1mInvLogit(this); },
  /** log(1 + e^x) (Stan's log1p_exp). */
  log1pExp(this: Node): Node { return log1pExp(this); },

  // Elementwise, two operands, broadcasting as in NumPy.
  /** x + b */
  add(this: Node, b: Operand): Node { return add(this, b); },
  /** x − b */
  sub(this: Node, b: Operand): Node { return sub(this, b); },
  /** x · b */
  mul(this: Node, b: Operand): Node { return mul(this, b); },
  /** x / b */
  div(this: Node, b: Operand): Node { return div(this, b); },
  /** x^b */
  pow(this: Node, b: Operand): Node { return pow(this, b); },
  /** Elementwise max(x, b) (max() is the reduction). */
  maximum(this: Node, b: Operand): Node { return maximum(this, b); },
  /** Elementwise min(x, b) (min() is the reduction). */
  minimum(this: Node, b: Operand): Node { return minimum(this, b); },
  /** atan2(x, b): the angle of the point (b, x). */
  atan2(this: Node, b: Operand): Node { return atan2(this, b); },
  /** x mod b, with the sign of b (Python's %). */
  mod(this: Node, b: Operand): Node { return mod(this, b); },
  /** log(e^x − e^b) for x ≥ b. */
  logDiffExp(this: Node, b: Operand): Node { return logDiffExp(this, b); },
  /** log(e^x + e^b), elementwise (logsumexp() is the reduction). */
  logSumExp(this: Node, b: Operand): Node { return logSumExp(this, b); },
  /** x < b */
  lt(this: Node, b: Operand): Node { return lt(this, b); },
  /** x ≤ b */
  le(this: Node, b: Operand): Node { return le(this, b); },
  /** x > b */
  gt(this: Node, b: Operand): Node { return gt(this, b); },
  /** x ≥ b */
  ge(this: Node, b: Operand): Node { return ge(this, b); },
  /** x = b */
  eq(this: Node, b: Operand): Node { return eq(this, b); },
  /** x ≠ b */
  ne(this: Node, b: Operand): Node { return ne(this, b); },
  /** Logical and of bool tensors. */
  and(this: Node, b: Operand): Node { return and(this, b); },
  /** Logical or of bool tensors. */
  or(this: Node, b: Operand): Node { return or(this, b); },
  /** Integer division truncated toward zero (Stan's %/), i32 only. */
  quotient(this: Node, b: Operand): Node { return quotient(this, b); },
  /** Integer remainder with the sign of x (Stan's %), i32 only. */
  remainder(this: Node, b: Operand): Node { return remainder(this, b); },
  /** Bitwise and, i32 only. */
  bitAnd(this: Node, b: Operand): Node { return bitAnd(this, b); },
  /** Bitwise or, i32 only. */
  bitOr(this: Node, b: Operand): Node { return bitOr(this, b); },
  /** Bitwise exclusive or, i32 only. */
  bitXor(this: Node, b: Operand): Node { return bitXor(this, b); },
  /** Bitwise complement, i32 only. */
  bitNot(this: Node): Node { return bitNot(this); },
  /** x·2^b, i32 only (b mod 32). */
  shiftLeft(this: Node, b: Operand): Node { return shiftLeft(this, b); },
  /** Arithmetic right shift by b mod 32, i32 only. */
  shiftRight(this: Node, b: Operand): Node { return shiftRight(this, b); },
  /** For a bool condition: ifTrue where it holds, ifFalse elsewhere. */
  select(this: Node, ifTrue: Operand, ifFalse: Operand): Node { return select(this, ifTrue, ifFalse); },

  // Reductions over axes (all by default; 0-based, negative from the end).
  /** Sum over axes. */
  sum(this: Node, axes?: Axes, keepdims = false): Node { return sum(this, axes, keepdims); },
  /** Product over axes. */
  prod(this: Node, axes?: Axes, keepdims = false): Node { return prod(this, axes, keepdims); },
  /** Maximum over axes (maximum() is elementwise). */
  max(this: Node, axes?: Axes, keepdims = false): Node { return max(this, axes, keepdims); },
  /** Minimum over axes (minimum() is elementwise). */
  min(this: Node, axes?: Axes, keepdims = false): Node { return min(this, axes, keepdims); },
  /** Arithmetic mean over axes. */
  mean(this: Node, axes?: Axes, keepdims = false): Node { return mean(this, axes, keepdims); },
  /** log Σ e^x over axes, without overflow. */
  logsumexp(this: Node, axes?: Axes, keepdims = false): Node { return logsumexp(this, axes, keepdims); },
  /** x − log Σ e^x along an axis (the last by default): log probabilities from logits. */
  logSoftmax(this: Node, axis = -1): Node { return logSoftmax(this, axis); },
  /** For bools: true where some entry over axes is. */
  any(this: Node, axes?: Axes, keepdims = false): Node { return any(this, axes, keepdims); },
  /** For bools: true where every entry over axes is. */
  all(this: Node, axes?: Axes, keepdims = false): Node { return all(this, axes, keepdims); },
  /** Sums of each run of k consecutive entries along an axis (the last by default). */
  slidingSum(this: Node, k: number, axis = -1): Node { return slidingSum(this, k, axis); },
  /** Maxima of each run of k consecutive entries along an axis (the last by default). */
  slidingMax(this: Node, k: number, axis = -1): Node { return slidingMax(this, k, axis); },
  /** 1-D convolution ("valid", kernel flipped as in NumPy's convolve) along the last axis. */
  conv1d(this: Node, w: Operand): Node { return conv1d(this, w); },

  // Shape.
  /** The same values in a new shape (one dimension may be -1). */
  reshape(this: Node, shape: readonly number[]): Node { return reshape(this, shape); },
  /** Broadcast to a larger shape. */
  broadcastTo(this: Node, shape: readonly number[]): Node { return broadcastTo(this, shape); },
  /** Permute the axes (reversed by default). */
  transpose(this: Node, perm?: readonly number[]): Node { return transpose(this, perm); },
  /** Swap the last two axes (the matrix transpose). */
  mT(this: Node): Node { return mT(this); },
  /** Pad each axis with a value: widths[i] = [before, after]. */
  pad(this: Node, widths: readonly (readonly [number, number])[], value = 0): Node { return pad(this, widths, value); },
  /** Sorted along an axis (the last by default), ascending unless descending (Stan's sort_asc, sort_desc). */
  sort(this: Node, axis = -1, descending = false): Node { return sort(this, axis, descending); },
  /** Running sum along an axis (Stan's cumulative_sum for axis 0). */
  cumsum(this: Node, axis = 0, reverse = false): Node { return cumsum(this, axis, reverse); },

  // Indexing, 1-based (convenience.ts).
  /** Stan's x[i, j, …], 1-based; an integer tensor of positions gathers (Stan's x[idx]). */
  at(this: Node, ...indices: readonly (number | Node)[]): Node { return at(this, ...indices); },
  /** Row i (1-based) of a matrix. */
  row(this: Node, i: number): Node { return row(this, i); },
  /** Column j (1-based) of a matrix. */
  col(this: Node, j: number): Node { return col(this, j); },
  /** Stan's x[first:last], 1-based and inclusive, on the leading axis. */
  range(this: Node, first: number, last?: number): Node { return range(this, first, last); },

  // Linear algebra.
  /** Matrix product x @ b (vectors promoted as in NumPy). */
  matmul(this: Node, b: Operand): Node { return matmul(this, b); },
  /** Inner product over the last axis. */
  dot(this: Node, b: Operand): Node { return dot(this, b); },
  /** Lower Cholesky factor of a symmetric positive-definite matrix. */
  cholesky(this: Node): Node { return cholesky(this); },
  /** Solve x·X = b (or xᵀ·X = b) for triangular x. */
  triangularSolve(this: Node, b: Operand, opts: { lower?: boolean; transposeA?: boolean } = {}): Node { return triangularSolve(this, b, opts); },
  /** Diagonal of a square matrix. */
  diagonal(this: Node): Node { return diagonal(this); },
  /** log det of a symmetric positive-definite matrix. */
  logdetSpd(this: Node): Node { return logdetSpd(this); },
  /** x⁻¹·b for a general square x, by LU with partial pivoting (Stan's mdivide_left, x \ b). */
  solve(this: Node, b: Operand): Node { return solve(this, b); },
  /** x⁻¹ of a general square matrix (Stan's inverse). */
  inverse(this: Node): Node { return inverse(this); },
  /** log|det x| of a general square matrix (Stan's log_determinant). */
  logDeterminant(this: Node): Node { return logDeterminant(this); },
  /** det x of a general square matrix (Stan's determinant). */
  determinant(this: Node): Node { return determinant(this); },
  /** Eigenvalues of a symmetric matrix, ascending (Stan's eigenvalues_sym). */
  eigenvaluesSym(this: Node): Node { return eigenvaluesSym(this); },
  /** Unit eigenvectors of a symmetric matrix as columns (Stan's eigenvectors_sym). */
  eigenvectorsSym(this: Node): Node { return eigenvectorsSym(this); },
  /** The square matrix with the vector x on its diagonal (Stan's diag_matrix). */
  diagMatrix(this: Node): Node { return diagMatrix(this); },
  /** x repeated to a shape (Stan's rep_vector, rep_matrix). */
  rep(this: Node, shape: readonly number[]): Node { return rep(this, shape); },
  /** The Kronecker product of the matrices x and b. */
  kronecker(this: Node, b: Operand): Node { return kronecker(this, b); },
  /** bᵀ·x·b for a square x (Stan's quad_form). */
  quadForm(this: Node, b: Operand): Node { return quadForm(this, b); },
  /** diag(v)·x·diag(v) (Stan's quad_form_diag). */
  quadFormDiag(this: Node, v: Operand): Node { return quadFormDiag(this, v); },
  /** trace(bᵀ·x·b) (Stan's trace_quad_form). */
  traceQuadForm(this: Node, b: Operand): Node { return traceQuadForm(this, b); },
};

/** The methods the fluent API adds to Node, each a call of the functional function of its name. */
export type FluentMethods = typeof methods;

declare module "../ir/node.ts" {
  // Declaration merging: the Node class gains FluentMethods' members.
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface Node extends FluentMethods {}
}

/** The fluent methods' names, in the order above. */
export const FLUENT_METHODS: readonly (keyof FluentMethods)[] = Object.keys(methods) as (keyof FluentMethods)[];

for (const name of FLUENT_METHODS) {
  // A name Node already has (a field, a getter, toString) would be shadowed or shadow it silently.
  if (name in Node.prototype) throw new Error(`fluent API: Node already has a member '${name}'`);
  // Not enumerable, as class methods are, so that nothing iterating a node's keys meets them.
  Object.defineProperty(Node.prototype, name, { value: methods[name], writable: true, configurable: true, enumerable: false });
}

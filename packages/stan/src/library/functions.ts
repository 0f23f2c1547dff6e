import {
  abs, add, atan2, cholesky, concat, constant, cos, cumsum, determinant, diagMatrix, diagonal, digamma, div, dot, eigenvaluesSym,
  eigenvectorsSym, erf, erfc, exp, expm1, floor, ceil, gpExpQuadCov, index, inverse, invPhi, isFinite, isNan, lgamma, log, log10,
  log1mExp, log1mInvLogit, log1p, log1pExp, logDeterminant, logDiffExp, logInvLogit, logMix, logSoftmax, logsumexp, logSumExp,
  matmul, max, maximum, mean, min, minimum, mod, mT, mul, neg, Phi,
  pow, prod, quadForm, quadFormDiag, reciprocal, reshape, rep, rsqrt, select, sigmoid, sin, slice, sqrt, square,
  sub, sum, tanh, triangularSolve, trigamma, lt, gt, cast, gpMatern32Cov, gpPeriodicCov, type Node,
} from "@ppl/tensor";
import { INT, MATRIX, REAL, ROW_VECTOR, VECTOR, isContainer, isInt, isNumeric, isScalar, isUnknown, showType, ty, UNKNOWN, type SType } from "../check/types.ts";

/** A value as library functions take it: a number known while tracing (an int, a literal) or a graph node. */
export type Arg = number | Node;

/** A built-in function: its result type for argument types (or an error message) and, where supported, its implementation. */
export interface Builtin {
  readonly type: (args: readonly SType[]) => SType | string;
  readonly impl?: (args: readonly Arg[], types: readonly SType[]) => Arg;
  /** True when, on scalar arguments, the implementation is elementwise: a loop over scalars may then run it on vectors of them (compile/vectorize.ts). */
  readonly elementwise?: boolean;
}

const node = (x: Arg): Node => (typeof x === "number" ? constant(x) : x);
const realOf = (t: SType): SType => (t.base === "int" ? ty("real", t.dims) : t);
const count = (n: number, args: readonly SType[]) => (args.length === n ? undefined : `takes ${n} argument${n === 1 ? "" : "s"}, got ${args.length}`);

// One argument, elementwise: int becomes real; f is used for numbers too (through a constant node).
function unary(f: (x: Node) => Node, onNumber?: (x: number) => number): Builtin {
  return {
    elementwise: true,
    type: (a) => count(1, a) ?? (isNumeric(a[0]!) || isUnknown(a[0]!) ? realOf(a[0]!) : `takes numbers, got ${showType(a[0]!)}`),
    impl: ([x]) => (typeof x === "number" && onNumber ? onNumber(x) : f(node(x!))),
  };
}

// Two arguments, elementwise with broadcasting of scalars.
function binary(f: (a: Node, b: Node) => Node, onNumbers?: (a: number, b: number) => number): Builtin {
  return {
    elementwise: true,
    type: (a) => {
      const err = count(2, a);
      if (err) return err;
      const [x, y] = a as [SType, SType];
      if (!isNumeric(x) && !isUnknown(x)) return `takes numbers, got ${showType(x)}`;
      if (isScalar(x) && isScalar(y) && x.base === "int" && y.base === "int" && onNumbers) return INT;
      if (isScalar(x)) return realOf(y);
      if (isScalar(y) || (x.base === y.base && x.dims === y.dims)) return realOf(x);
      return `cannot combine ${showType(x)} and ${showType(y)}`;
    },
    impl: ([x, y]) => (typeof x === "number" && typeof y === "number" && onNumbers ? onNumbers(x, y) : f(node(x!), node(y!))),
  };
}

// A reduction of a container (or of several scalars) to a real.
function reduction(f: (x: Node) => Node, intResult = false): Builtin {
  return {
    type: (a) => (a.length === 1 && (isContainer(a[0]!) || isUnknown(a[0]!)) ? (intResult && a[0]!.base === "int" ? INT : REAL) : `takes one container, got ${a.map(showType).join(", ")}`),
    impl: ([x]) => f(node(x!)),
  };
}

const fixed = (result: SType, n: number, impl: Builtin["impl"]): Builtin => ({ type: (a) => count(n, a) ?? result, impl });
const constantFn = (v: number): Builtin => fixed(REAL, 0, () => v);

// Stan's vectors and arrays are column-major when flattened into a vector (to_vector of a matrix).
function columnMajor(x: Node): Node {
  return x.rank === 2 ? reshape(mT(x), [x.size]) : reshape(x, [x.size]);
}

// The two-argument min and max: on ints they stay ints known while tracing.
function extremum(pick: (a: Node, b: Node) => Node, reduce: (x: Node) => Node, onNumbers: (a: number, b: number) => number): Builtin {
  return {
    elementwise: true,
    type: (a) => (a.length === 2 ? (isInt(a[0]!) && isInt(a[1]!) ? INT : REAL) : a.length === 1 && isContainer(a[0]!) ? (a[0]!.base === "int" ? INT : REAL) : "takes two scalars or one container"),
    impl: (args) => (args.length === 2 ? (typeof args[0] === "number" && typeof args[1] === "number" ? onNumbers(args[0], args[1]) : pick(node(args[0]!), node(args[1]!))) : reduce(node(args[0]!))),
  };
}

function sizeOf(x: Arg, t: SType, which: "size" | "rows" | "cols" | "num_elements"): number {
  const shape = typeof x === "number" ? [] : x.shape;
  if (which === "num_elements") return shape.reduce((a, b) => a * b, 1);
  if (which === "size") return shape[0] ?? 1;
  if (which === "rows") return t.base === "row_vector" ? 1 : (shape[t.dims] ?? 1);
  return t.base === "vector" ? 1 : t.base === "row_vector" ? shape[t.dims]! : shape[t.dims + 1]!;
}

const sizeFn = (which: "size" | "rows" | "cols" | "num_elements"): Builtin => ({ type: (a) => count(1, a) ?? INT, impl: ([x], [t]) => sizeOf(x!, t!, which) });

function repVector(base: "vector" | "row_vector"): Builtin {
  return { type: (a) => count(2, a) ?? ty(base), impl: ([x, n]) => rep(node(x!), [staticInt(n!)]) };
}

/** A number that must be known while tracing (a size). */
export function staticInt(x: Arg): number {
  if (typeof x !== "number") throw new StaticValueError();
  return x;
}

/** Raised where a size or an index must be known while tracing and is a graph value instead. */
export class StaticValueError extends Error {
  constructor() {
    super("this value must be known before sampling (from data, transformed data or a loop index), but it depends on parameters; compute it from data");
  }
}

function appendRow(a: Arg, b: Arg, ta: SType, tb: SType): Node {
  const x = ta.base === "real" || ta.base === "int" ? reshape(node(a), [1]) : ta.base === "row_vector" ? reshape(node(a), [1, node(a).size]) : node(a);
  const y = tb.base === "real" || tb.base === "int" ? reshape(node(b), [1]) : tb.base === "row_vector" ? reshape(node(b), [1, node(b).size]) : node(b);
  return concat([x, y], 0);
}

function appendCol(a: Arg, b: Arg, ta: SType, tb: SType): Node {
  const asCol = (x: Arg, t: SType) => (t.base === "vector" ? reshape(node(x), [node(x).size, 1]) : t.base === "real" || t.base === "int" ? reshape(node(x), [1]) : node(x));
  return concat([asCol(a, ta), asCol(b, tb)], -1);
}

// rep_matrix(x, m, n), rep_matrix(v, n) (columns), rep_matrix(rv, m) (rows).
function repMatrix(args: readonly Arg[], types: readonly SType[]): Node {
  if (args.length === 3) return rep(node(args[0]!), [staticInt(args[1]!), staticInt(args[2]!)]);
  const v = node(args[0]!);
  const n = staticInt(args[1]!);
  if (types[0]!.base === "vector") return mT(rep(reshape(v, [1, v.size]), [n, v.size]));
  return rep(reshape(v, [1, v.size]), [n, v.size]);
}

// rep_array(x, n...): an array of copies of x.
function repArray(args: readonly Arg[]): Node {
  const x = node(args[0]!);
  const dims = args.slice(1).map(staticInt);
  return rep(x, [...dims, ...x.shape]);
}

/** The built-in functions the compiler implements, by Stan name. */
export const FUNCTIONS: Readonly<Record<string, Builtin>> = {
  log: unary(log, Math.log), exp: unary(exp, Math.exp), sqrt: unary(sqrt, Math.sqrt), square: unary(square, (x) => x * x),
  log1p: unary(log1p), expm1: unary(expm1), lgamma: unary(lgamma), digamma: unary(digamma), trigamma: unary(trigamma),
  erf: unary(erf), erfc: unary(erfc), Phi: unary(Phi), inv_Phi: unary(invPhi), sin: unary(sin), cos: unary(cos), tanh: unary(tanh),
  floor: unary(floor, Math.floor), ceil: unary(ceil, Math.ceil), log10: unary(log10, Math.log10), fabs: unary(abs, Math.abs),
  inv_logit: unary(sigmoid), logit: unary((x) => sub(log(x), log1p(neg(x)))), log1m: unary((x) => log1p(neg(x))),
  log1m_exp: unary(log1mExp), log1p_exp: unary(log1pExp), log_inv_logit: unary(logInvLogit), log1m_inv_logit: unary(log1mInvLogit),
  inv: unary(reciprocal, (x) => 1 / x), inv_sqrt: unary(rsqrt), inv_square: unary((x) => reciprocal(square(x))),
  log2: unary((x) => div(log(x), Math.LN2), Math.log2), exp2: unary((x) => exp(mul(x, Math.LN2)), (x) => 2 ** x),
  Phi_approx: unary((x) => sigmoid(add(mul(0.07056, pow(x, 3)), mul(1.5976, x)))),
  abs: { elementwise: true, type: (a) => count(1, a) ?? a[0]!, impl: ([x]) => (typeof x === "number" ? Math.abs(x) : abs(x!)) },
  step: unary((x) => select(lt(x, 0), constant(0), constant(1)), (x) => (x < 0 ? 0 : 1)),
  int_step: { type: (a) => count(1, a) ?? INT, impl: ([x]) => (typeof x === "number" ? (x > 0 ? 1 : 0) : cast(gt(x!, 0), "f64")) },
  is_inf: { type: (a) => count(1, a) ?? INT, impl: ([x]) => (typeof x === "number" ? (Math.abs(x) === Infinity ? 1 : 0) : cast(isFinite(x!), "f64").mul(-1).add(1).sub(cast(isNan(x!), "f64"))) },
  is_nan: { type: (a) => count(1, a) ?? INT, impl: ([x]) => (typeof x === "number" ? (Number.isNaN(x) ? 1 : 0) : cast(isNan(x!), "f64")) },
  pow: binary(pow, (a, b) => a ** b), fmin: binary(minimum, Math.min), fmax: binary(maximum, Math.max), atan2: binary(atan2),
  fmod: binary(mod), fdim: binary((a, b) => maximum(sub(a, b), 0)), log_diff_exp: binary(logDiffExp),
  lmultiply: binary((a, b) => select(lt(0, abs(a)), mul(a, log(b)), constant(0))),
  lchoose: binary((n, k) => sub(lgamma(add(n, 1)), add(lgamma(add(k, 1)), lgamma(add(sub(n, k), 1))))),
  binomial_coefficient_log: binary((n, k) => sub(lgamma(add(n, 1)), add(lgamma(add(k, 1)), lgamma(add(sub(n, k), 1))))),
  lbeta: binary((a, b) => sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)))),
  log_mix: { elementwise: true, type: (a) => count(3, a) ?? REAL, impl: ([t, a, b]) => logMix(node(t!), a!, b!) },
  log_sum_exp: {
    elementwise: true,
    type: (a) => (a.length === 2 || (a.length === 1 && isContainer(a[0]!)) ? REAL : "takes two scalars or one container"),
    impl: (args) => (args.length === 2 ? logSumExp(node(args[0]!), node(args[1]!)) : logsumexp(node(args[0]!))),
  },
  max: extremum(maximum, (x) => max(x), Math.max),
  min: extremum(minimum, (x) => min(x), Math.min),
  sum: reduction((x) => sum(x), true), prod: reduction((x) => prod(x)), mean: reduction((x) => mean(x)),
  variance: reduction((x) => div(sum(square(sub(x, mean(x)))), x.size - 1)),
  sd: reduction((x) => sqrt(div(sum(square(sub(x, mean(x)))), x.size - 1))),
  dot_self: reduction((x) => sum(square(x))),
  dot_product: fixed(REAL, 2, ([a, b]) => dot(node(a!), node(b!))),
  squared_distance: fixed(REAL, 2, ([a, b]) => sum(square(sub(node(a!), node(b!))))),
  distance: fixed(REAL, 2, ([a, b]) => sqrt(sum(square(sub(node(a!), node(b!)))))),
  size: sizeFn("size"), rows: sizeFn("rows"), cols: sizeFn("cols"), num_elements: sizeFn("num_elements"),
  rep_vector: repVector("vector"), rep_row_vector: repVector("row_vector"),
  rep_matrix: { type: (a) => (a.length === 3 || a.length === 2 ? MATRIX : "takes (x, m, n), (vector, n) or (row_vector, m)"), impl: repMatrix },
  rep_array: { type: (a) => (a.length >= 2 && a.length <= 4 ? ty(a[0]!.base as "real", a[0]!.dims + a.length - 1) : "takes a value and one to three sizes"), impl: (a) => repArray(a) },
  to_vector: { type: (a) => count(1, a) ?? VECTOR, impl: ([x], [t]) => (t!.base === "matrix" && t!.dims === 0 ? columnMajor(node(x!)) : reshape(node(x!), [node(x!).size])) },
  to_row_vector: { type: (a) => count(1, a) ?? ROW_VECTOR, impl: ([x], [t]) => (t!.base === "matrix" && t!.dims === 0 ? columnMajor(node(x!)) : reshape(node(x!), [node(x!).size])) },
  diag_matrix: fixed(MATRIX, 1, ([v]) => diagMatrix(node(v!))),
  diagonal: fixed(VECTOR, 1, ([m]) => diagonal(node(m!))),
  identity_matrix: fixed(MATRIX, 1, ([n]) => diagMatrix(rep(constant(1), [staticInt(n!)]))),
  cholesky_decompose: fixed(MATRIX, 1, ([m]) => cholesky(node(m!))),
  inverse: fixed(MATRIX, 1, ([m]) => inverse(node(m!))),
  determinant: fixed(REAL, 1, ([m]) => determinant(node(m!))),
  log_determinant: fixed(REAL, 1, ([m]) => logDeterminant(node(m!))),
  eigenvalues_sym: fixed(VECTOR, 1, ([m]) => eigenvaluesSym(node(m!))),
  eigenvectors_sym: fixed(MATRIX, 1, ([m]) => eigenvectorsSym(node(m!))),
  crossprod: fixed(MATRIX, 1, ([m]) => matmul(mT(node(m!)), node(m!))),
  tcrossprod: fixed(MATRIX, 1, ([m]) => matmul(node(m!), mT(node(m!)))),
  multiply_lower_tri_self_transpose: fixed(MATRIX, 1, ([m]) => lowerSelfTranspose(node(m!))),
  diag_pre_multiply: fixed(MATRIX, 2, ([v, m]) => mul(reshape(node(v!), [node(v!).size, 1]), node(m!))),
  diag_post_multiply: fixed(MATRIX, 2, ([m, v]) => mul(node(m!), reshape(node(v!), [1, node(v!).size]))),
  quad_form_diag: fixed(MATRIX, 2, ([m, v]) => quadFormDiag(node(m!), node(v!))),
  quad_form: { type: (a) => count(2, a) ?? (a[1]!.base === "vector" ? REAL : MATRIX), impl: ([m, b]) => quadForm(node(m!), node(b!)) },
  mdivide_left_tri_low: { type: (a) => count(2, a) ?? a[1]!, impl: ([l, b]) => triangularSolve(node(l!), node(b!), { lower: true }) },
  mdivide_right_tri_low: { type: (a) => count(2, a) ?? a[0]!, impl: ([b, l]) => mT(triangularSolve(node(l!), mT(node(b!)), { lower: true, transposeA: true })) },
  gp_exp_quad_cov: gpCov(gpExpQuadCov), gp_matern32_cov: gpCov(gpMatern32Cov), gp_periodic_cov: gpCov(gpPeriodicCov, 4),
  append_row: { type: (a) => count(2, a) ?? (a[0]!.base === "matrix" || a[1]!.base === "matrix" || a[0]!.base === "row_vector" ? MATRIX : VECTOR), impl: ([a, b], [ta, tb]) => appendRow(a!, b!, ta!, tb!) },
  append_col: { type: (a) => count(2, a) ?? (a[0]!.base === "matrix" || a[1]!.base === "matrix" || a[0]!.base === "vector" ? MATRIX : ROW_VECTOR), impl: ([a, b], [ta, tb]) => appendCol(a!, b!, ta!, tb!) },
  head: { type: (a) => count(2, a) ?? a[0]!, impl: ([x, n]) => slice(node(x!), [{ start: 0, stop: staticInt(n!) }]) },
  tail: { type: (a) => count(2, a) ?? a[0]!, impl: ([x, n]) => slice(node(x!), [{ start: node(x!).shape[0]! - staticInt(n!) }]) },
  segment: { type: (a) => count(3, a) ?? a[0]!, impl: ([x, i, n]) => slice(node(x!), [{ start: staticInt(i!) - 1, stop: staticInt(i!) - 1 + staticInt(n!) }]) },
  transpose: { type: (a) => count(1, a) ?? (a[0]!.base === "vector" ? ROW_VECTOR : a[0]!.base === "row_vector" ? VECTOR : MATRIX), impl: ([x]) => (node(x!).rank === 2 ? mT(node(x!)) : node(x!)) },
  cumulative_sum: { type: (a) => count(1, a) ?? a[0]!, impl: ([x]) => cumsum(node(x!)) },
  softmax: fixed(VECTOR, 1, ([x]) => exp(logSoftmax(node(x!)))),
  log_softmax: fixed(VECTOR, 1, ([x]) => logSoftmax(node(x!))),
  col: fixed(VECTOR, 2, ([m, j]) => index(node(m!), staticInt(j!) - 1, 1)),
  row: fixed(ROW_VECTOR, 2, ([m, i]) => index(node(m!), staticInt(i!) - 1, 0)),
  sub_col: fixed(VECTOR, 4, ([m, i, j, n]) => slice(index(node(m!), staticInt(j!) - 1, 1), [{ start: staticInt(i!) - 1, stop: staticInt(i!) - 1 + staticInt(n!) }])),
  sub_row: fixed(ROW_VECTOR, 4, ([m, i, j, n]) => slice(index(node(m!), staticInt(i!) - 1, 0), [{ start: staticInt(j!) - 1, stop: staticInt(j!) - 1 + staticInt(n!) }])),
  pi: constantFn(Math.PI), e: constantFn(Math.E), sqrt2: constantFn(Math.SQRT2), not_a_number: constantFn(NaN),
  negative_infinity: constantFn(-Infinity), positive_infinity: constantFn(Infinity), machine_precision: constantFn(Number.EPSILON),
};

// Stan's GP covariance functions: (x, alpha, rho[, period]) or (x1, x2, alpha, rho[, period]).
function gpCov(f: typeof gpExpQuadCov | typeof gpPeriodicCov, params = 3): Builtin {
  // The library's functions take the points first, the kernel's parameters, then the second points.
  const g = f as unknown as (...a: (Arg | undefined)[]) => Node;
  return {
    type: (a) => (a.length === params || a.length === params + 1 ? MATRIX : `takes ${params} or ${params + 1} arguments`),
    impl: (args) => {
      const two = args.length === params + 1;
      const x1 = node(args[0]!);
      const x2 = two ? node(args[1]!) : undefined;
      const rest = args.slice(two ? 2 : 1);
      return g(x1, ...rest, x2);
    },
  };
}

// L Lᵀ of the lower triangle of m (the entries above the diagonal are ignored, as in Stan).
function lowerSelfTranspose(m: Node): Node {
  const n = m.shape[0]!;
  const mask = constant(Array.from({ length: n * n }, (_, k) => (Math.floor(k / n) >= k % n ? 1 : 0)), [n, n]);
  const l = mul(m, mask);
  return matmul(l, mT(l));
}

/** Stan's built-in functions that exist but are not implemented here: the checker accepts them, the compiler refuses them by name. */
export const KNOWN_UNSUPPORTED = new Set<string>([
  "algebra_solver", "algebra_solver_newton", "solve_newton", "solve_powell", "integrate_1d", "map_rect", "reduce_sum", "reduce_sum_static",
  "kron_mvprod", "reshape", "to_matrix", "to_array_1d", "to_array_2d", "to_int", "sort_asc", "sort_desc", "sort_indices_asc", "sort_indices_desc",
  "rank", "reverse", "linspaced_vector", "linspaced_array", "one_hot_vector", "zeros_vector", "ones_vector", "block", "sub_matrix", "columns_dot_product",
  "rows_dot_product", "columns_dot_self", "rows_dot_self", "matrix_exp", "matrix_power", "trace", "mdivide_left_spd", "mdivide_right_spd",
  "cholesky_factor", "singular_values", "svd_U", "svd_V", "qr_Q", "qr_R", "qr_thin_Q", "qr_thin_R", "tgamma", "round", "trunc", "cbrt",
  "sinh", "cosh", "asin", "acos", "atan", "tan", "asinh", "acosh", "atanh", "hypot", "inc_beta", "choose", "falling_factorial", "rising_factorial",
  "log_falling_factorial", "log_rising_factorial", "bessel_first_kind", "modified_bessel_first_kind", "owens_t", "gamma_p", "gamma_q",
  "log_modified_bessel_first_kind", "fma", "norm1", "norm2", "append_array",
  "gp_dot_prod_cov", "gp_exponential_cov", "cov_exp_quad", "add_diag", "symmetrize_from_lower_tri", "hmm_marginal",
  "std_normal_log_qf", "std_normal_qf", "logical_negation", "get_lp", "target",
]);

/**
 * The op vocabulary of the IR. Every backend, the autodiff rules and the batching rules
 * switch over these names; adding an op means adding it here and in each of those tables.
 */

/** Elementwise ops of one input; float-valued unless noted (not, is_nan and is_finite return bool). */
export const UNARY_OPS = [
  "neg", "abs", "sign", "exp", "expm1", "log", "log1p", "sqrt", "rsqrt", "square", "reciprocal",
  "sin", "cos", "tanh", "sigmoid", "softplus", "log_sigmoid", "erf", "erfc", "lgamma", "inv_phi",
  "floor", "ceil", "not", "stop_gradient", "is_nan", "is_finite",
] as const;
export type UnaryOp = (typeof UNARY_OPS)[number];

/**
 * Elementwise ops of two inputs with NumPy broadcasting. gamma_p(a, x) and gamma_q(a, x) are the
 * regularised incomplete gamma functions, gamma_p_da(a, x) = ∂P(a, x)/∂a, owens_t(h, a) is Owen's T function.
 */
export const BINARY_OPS = [
  "add", "sub", "mul", "div", "pow", "max", "min", "atan2", "mod", "gamma_p", "gamma_q", "gamma_p_da", "owens_t",
  "quotient", "remainder", "bit_and", "bit_or", "bit_xor", "shift_left", "shift_right",
] as const;
export type BinaryOp = (typeof BINARY_OPS)[number];

/**
 * The binary ops defined on i32 only. quotient and remainder truncate toward zero (C's and Stan's
 * %/ and %: the remainder has the sign of the dividend); a zero divisor gives quotient 0 and
 * remainder a, so that a = b·quotient + remainder still holds; −2³¹ %/ −1 overflows (the CPU wraps,
 * a GPU need not). Shift counts are taken mod 32, and shift_right is arithmetic (it copies the sign bit).
 */
export const INTEGER_BINARY_OPS = [
  "quotient", "remainder", "bit_and", "bit_or", "bit_xor", "shift_left", "shift_right",
] as const satisfies readonly BinaryOp[];
export type IntegerBinaryOp = (typeof INTEGER_BINARY_OPS)[number];

/** Comparisons and logical ops; they return bool. */
export const COMPARE_OPS = ["lt", "le", "gt", "ge", "eq", "ne", "and", "or"] as const;
export type CompareOp = (typeof COMPARE_OPS)[number];

/** Reductions over a set of axes (the reduced axes are removed). */
export const REDUCE_OPS = ["reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_logsumexp"] as const;
export type ReduceOp = (typeof REDUCE_OPS)[number];

export type LeafOp = "param" | "data" | "const" | "arg";
export type StructOp =
  | "select" | "cast" | "polygamma" | "betainc" | "betainc_grad"
  | "matmul" | "reshape" | "broadcast_to" | "transpose" | "slice" | "concat" | "pad"
  | "gather" | "scatter_add" | "cumsum" | "argsort"
  | "scan" | "tuple_get"
  | "cholesky" | "triangular_solve"
  | "solve" | "slogdet" | "eigh"
  | "lpdf_sum";

export type Op = LeafOp | UnaryOp | BinaryOp | CompareOp | ReduceOp | StructOp;

const unarySet = new Set<string>(UNARY_OPS);
const binarySet = new Set<string>(BINARY_OPS);
const compareSet = new Set<string>(COMPARE_OPS);
const reduceSet = new Set<string>(REDUCE_OPS);
const integerBinarySet = new Set<string>(INTEGER_BINARY_OPS);

/** True for elementwise ops of one input. */
export const isUnary = (op: Op): op is UnaryOp => unarySet.has(op);
/** True for arithmetic elementwise ops of two inputs. */
export const isBinary = (op: Op): op is BinaryOp => binarySet.has(op);
/** True for the binary ops defined on i32 only. */
export const isIntegerBinary = (op: Op): op is IntegerBinaryOp => integerBinarySet.has(op);
/** True for comparison and logical ops. */
export const isCompare = (op: Op): op is CompareOp => compareSet.has(op);
/** True for reductions. */
export const isReduce = (op: Op): op is ReduceOp => reduceSet.has(op);
/** True for every elementwise op (unary, binary, compare, select, cast, polygamma, betainc, betainc_grad). */
export const isElementwise = (op: Op): boolean =>
  isUnary(op) || isBinary(op) || isCompare(op) || op === "select" || op === "cast" || op === "polygamma" || op === "betainc" ||
  op === "betainc_grad";

/**
 * The families of lpdf_sum(y, ...params): Σ log p(y | params) over the broadcast of its inputs, one
 * node with hand-written partials (Stan math's operands-and-partials) instead of its expansion.
 * normal(y, mu, sigma), bernoulli_logit(y, alpha), poisson_log(y, alpha); y is taken to lie in the
 * family's support (the distributions check it outside the node).
 */
export const LPDF_FAMILIES = ["normal", "bernoulli_logit", "poisson_log"] as const;
export type LpdfFamily = (typeof LPDF_FAMILIES)[number];

/** The leaf ops (graph inputs), as a list for tables that must cover every op. */
export const LEAF_OPS = ["param", "data", "const", "arg"] as const satisfies readonly LeafOp[];

/** The structural ops, as a list for tables that must cover every op. */
export const STRUCT_OPS = [
  "select", "cast", "polygamma", "betainc", "betainc_grad",
  "matmul", "reshape", "broadcast_to", "transpose", "slice", "concat", "pad",
  "gather", "scatter_add", "cumsum", "argsort",
  "scan", "tuple_get",
  "cholesky", "triangular_solve",
  "solve", "slogdet", "eigh",
  "lpdf_sum",
] as const satisfies readonly StructOp[];

// Compile-time check that the two lists above name every member of their types.
type Missing<T, L extends readonly unknown[]> = Exclude<T, L[number]>;
const _leafOpsComplete: [Missing<LeafOp, typeof LEAF_OPS>] extends [never] ? true : never = true;
const _structOpsComplete: [Missing<StructOp, typeof STRUCT_OPS>] extends [never] ? true : never = true;
void _leafOpsComplete;
void _structOpsComplete;

/** Every op of the IR. */
export const ALL_OPS: readonly Op[] = [...LEAF_OPS, ...UNARY_OPS, ...BINARY_OPS, ...COMPARE_OPS, ...REDUCE_OPS, ...STRUCT_OPS];

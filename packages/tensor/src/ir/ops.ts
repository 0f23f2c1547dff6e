/**
 * The op vocabulary of the IR and each op's traits: what an op is (its class), what it costs, how
 * backends schedule it. The tables below are the one place an op is named; the op lists and types
 * are read off them, and the CPU compiler, the Vulkan codegen and the tracing API read the traits
 * (OP_TRAITS). Adding an op means a line here; the compiler then asks for its entry in each
 * Record<…Op, …> table that must cover it (the CPU's scalar and JavaScript forms, the derivative).
 */

/** What a node of an op is, as backends schedule it. */
export type OpClass =
  /** A graph input: param, data, const, arg. */
  | "leaf"
  /** One output element from its inputs' elements at the same (broadcast) index. */
  | "elementwise"
  /** One input re-indexed, nothing computed: reshape, broadcast_to, transpose, slice. */
  | "view"
  /** Inputs read at computed positions, a bounded number of times an element: concat, pad, gather. */
  | "movement"
  /** A fold over axes. */
  | "reduce"
  /** Each unit of the output (an element, a line, a matrix, a recurrence) runs a loop of its own. */
  | "loop"
  /** An output of the scan it reads, written by the scan's kernel. */
  | "tuple"
  /** Lowered to other ops before any backend renders it (lpdf_sum). */
  | "composite";

/**
 * How a loop op is kept within a driver's cap on loop iterations (llvmpipe ends every loop of an
 * invocation after 65,535): "split" ops are spread over workgroups or blocks by their strategy
 * when long; "serial" (one thread a line, matrix or column), "linalg" and "scan" ops are counted
 * and refused at plan time when over (the Vulkan codegen's scan-budget.ts and linalg-units.ts).
 */
export type LoopBudget = "none" | "split" | "serial" | "linalg" | "scan";

/** The traits of an op. */
export interface OpTraits {
  readonly class: OpClass;
  /** Always computed by a GPU kernel of its own into storage (reductions and loop ops; a scan's kernel is scheduled with its tuple_gets instead). */
  readonly materialized: boolean;
  /** Its output's units run loops of their own rather than one expression of the inputs (the loop ops). */
  readonly looping: boolean;
  /**
   * Rough cost of one element computed inline, a load being 1: what the GPU schedule weighs
   * against storing a value read at many places (20 for series and special functions, 6 for
   * transcendentals).
   */
  readonly cost: number;
  /** About as cheap as reading its value from memory, so recomputing it where it is read can beat storing it (the CPU compiler's fusion). */
  readonly cheap: boolean;
  /** Reads each element of its inputs many times (a matrix product, a factorization): its inputs are stored, never recomputed inline. */
  readonly rereads: boolean;
  readonly loopBudget: LoopBudget;
  /** The dtype an elementwise op computes in: "float" (integer operands are cast to a float), "bool" (it returns bool), "operand" (its operands'). */
  readonly computes: "float" | "bool" | "operand";
}

const NO_LOOP = { materialized: false, looping: false, rereads: false, loopBudget: "none" } as const;

function elementwise(cost: number, computes: OpTraits["computes"], cheap = false): OpTraits {
  return { class: "elementwise", ...NO_LOOP, cost, cheap, computes };
}
const CHEAP = true;
const LEAF: OpTraits = { class: "leaf", ...NO_LOOP, cost: 0, cheap: false, computes: "operand" };

function structural<const C extends "view" | "movement" | "tuple" | "composite">(cls: C): OpTraits & { readonly class: C } {
  return { class: cls, ...NO_LOOP, cost: 0, cheap: false, computes: "operand" };
}

function loop<const B extends Exclude<LoopBudget, "none">>(loopBudget: B, options: { rereads?: boolean; materialized?: boolean } = {}) {
  return {
    class: "loop", materialized: options.materialized ?? true, looping: true, cost: 0, cheap: false,
    rereads: options.rereads ?? false, loopBudget, computes: "operand",
  } as const satisfies OpTraits;
}

const REDUCE_TRAITS: OpTraits = { class: "reduce", materialized: true, looping: false, cost: 0, cheap: false, rereads: false, loopBudget: "split", computes: "operand" };

const keysOf = <T extends object>(table: T): readonly (keyof T & string)[] => Object.keys(table) as (keyof T & string)[];

const LEAVES = { param: LEAF, data: LEAF, const: LEAF, arg: LEAF } satisfies Record<string, OpTraits>;

/**
 * Elementwise ops of one input; float-valued unless noted (not, is_nan and is_finite return bool).
 * inv_phi weighs 1 in the GPU schedule, as it always has (a rational approximation behind a log).
 */
const UNARY = {
  neg: elementwise(1, "operand", CHEAP), abs: elementwise(1, "operand", CHEAP), sign: elementwise(1, "operand", CHEAP),
  exp: elementwise(6, "float"), expm1: elementwise(6, "float"), log: elementwise(6, "float"), log1p: elementwise(6, "float"),
  sqrt: elementwise(1, "float"), rsqrt: elementwise(1, "float"), square: elementwise(1, "operand", CHEAP), reciprocal: elementwise(1, "float"),
  sin: elementwise(6, "float"), cos: elementwise(6, "float"), tanh: elementwise(6, "float"), sigmoid: elementwise(6, "float"),
  softplus: elementwise(6, "float"), log_sigmoid: elementwise(6, "float"),
  erf: elementwise(20, "float"), erfc: elementwise(20, "float"), lgamma: elementwise(20, "float"), inv_phi: elementwise(1, "float"),
  floor: elementwise(1, "float", CHEAP), ceil: elementwise(1, "float", CHEAP), not: elementwise(1, "bool", CHEAP),
  stop_gradient: elementwise(1, "operand", CHEAP), is_nan: elementwise(1, "bool"), is_finite: elementwise(1, "bool"),
} satisfies Record<string, OpTraits>;
export const UNARY_OPS = keysOf(UNARY);
export type UnaryOp = keyof typeof UNARY;

/**
 * Elementwise ops of two inputs with NumPy broadcasting. gamma_p(a, x) and gamma_q(a, x) are the
 * regularised incomplete gamma functions, gamma_p_da(a, x) = ∂P(a, x)/∂a, owens_t(h, a) is Owen's T function.
 */
const BINARY = {
  add: elementwise(1, "operand", CHEAP), sub: elementwise(1, "operand", CHEAP), mul: elementwise(1, "operand", CHEAP),
  div: elementwise(1, "float"), pow: elementwise(20, "float"),
  max: elementwise(1, "operand", CHEAP), min: elementwise(1, "operand", CHEAP), atan2: elementwise(20, "float"), mod: elementwise(1, "operand"),
  gamma_p: elementwise(1, "float"), gamma_q: elementwise(1, "float"), gamma_p_da: elementwise(1, "float"), owens_t: elementwise(1, "float"),
  quotient: elementwise(1, "operand"), remainder: elementwise(1, "operand"), bit_and: elementwise(1, "operand"), bit_or: elementwise(1, "operand"),
  bit_xor: elementwise(1, "operand"), shift_left: elementwise(1, "operand"), shift_right: elementwise(1, "operand"),
} satisfies Record<string, OpTraits>;
export const BINARY_OPS = keysOf(BINARY);
export type BinaryOp = keyof typeof BINARY;

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
const COMPARE = {
  lt: elementwise(1, "bool", CHEAP), le: elementwise(1, "bool", CHEAP), gt: elementwise(1, "bool", CHEAP), ge: elementwise(1, "bool", CHEAP),
  eq: elementwise(1, "bool", CHEAP), ne: elementwise(1, "bool", CHEAP), and: elementwise(1, "bool", CHEAP), or: elementwise(1, "bool", CHEAP),
} satisfies Record<string, OpTraits>;
export const COMPARE_OPS = keysOf(COMPARE);
export type CompareOp = keyof typeof COMPARE;

/** Reductions over a set of axes (the reduced axes are removed). */
const REDUCE = {
  reduce_sum: REDUCE_TRAITS, reduce_prod: REDUCE_TRAITS, reduce_max: REDUCE_TRAITS, reduce_min: REDUCE_TRAITS, reduce_logsumexp: REDUCE_TRAITS,
} satisfies Record<string, OpTraits>;
export const REDUCE_OPS = keysOf(REDUCE);
export type ReduceOp = keyof typeof REDUCE;

/** The other ops: elementwise ops with attributes, movements, products, sorts, scans, linear algebra. */
const STRUCT = {
  select: elementwise(1, "operand", CHEAP), cast: elementwise(1, "operand", CHEAP), polygamma: elementwise(20, "float"),
  betainc: elementwise(1, "float"), betainc_grad: elementwise(1, "float"),
  matmul: loop("split", { rereads: true }),
  reshape: structural("view"), broadcast_to: structural("view"), transpose: structural("view"), slice: structural("view"),
  concat: structural("movement"), pad: structural("movement"), gather: structural("movement"),
  scatter_add: loop("split"), cumsum: loop("split"), argsort: loop("serial"),
  // One kernel runs the whole recurrence and writes every tuple_get of it.
  scan: loop("scan", { materialized: false }),
  tuple_get: structural("tuple"),
  cholesky: loop("serial", { rereads: true }), triangular_solve: loop("serial", { rereads: true }),
  solve: loop("linalg", { rereads: true }), slogdet: loop("linalg", { rereads: true }), eigh: loop("linalg", { rereads: true }),
  lpdf_sum: structural("composite"),
} satisfies Record<string, OpTraits>;

export type LeafOp = keyof typeof LEAVES;
export type StructOp = keyof typeof STRUCT;
type StructOpOf<C extends OpClass> = { [K in StructOp]: (typeof STRUCT)[K]["class"] extends C ? K : never }[StructOp];
/** The ops whose units run loops of their own (class "loop"): each backend renders each of them its own way. */
export type LoopOp = StructOpOf<"loop">;
/** The movements (class "movement"): concat, pad, gather. */
export type MovementOp = StructOpOf<"movement">;

export type Op = LeafOp | UnaryOp | BinaryOp | CompareOp | ReduceOp | StructOp;

/** Every op's traits. */
export const OP_TRAITS: Readonly<Record<Op, OpTraits>> = { ...LEAVES, ...UNARY, ...BINARY, ...COMPARE, ...REDUCE, ...STRUCT };

/** The leaf ops (graph inputs), as a list for tables that must cover every op. */
export const LEAF_OPS = keysOf(LEAVES);
/** The structural ops, as a list for tables that must cover every op. */
export const STRUCT_OPS = keysOf(STRUCT);
/** The loop ops, as a list. */
export const LOOP_OPS = STRUCT_OPS.filter((op): op is LoopOp => STRUCT[op].class === "loop");
/** Every op of the IR. */
export const ALL_OPS: readonly Op[] = [...LEAF_OPS, ...UNARY_OPS, ...BINARY_OPS, ...COMPARE_OPS, ...REDUCE_OPS, ...STRUCT_OPS];

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
export const isElementwise = (op: Op): boolean => OP_TRAITS[op].class === "elementwise";
/** True for the ops whose units run loops of their own. */
export const isLoop = (op: Op): op is LoopOp => OP_TRAITS[op].looping;
/** True for views: reshape, broadcast_to, transpose, slice (one input re-indexed). */
export const isView = (op: Op): boolean => OP_TRAITS[op].class === "view";
/** True for an elementwise op about as cheap as reading its value from memory. */
export const isCheap = (op: Op): boolean => OP_TRAITS[op].cheap;

/**
 * The families of lpdf_sum(y, ...params): Σ log p(y | params) over the broadcast of its inputs, one
 * node with hand-written partials (Stan math's operands-and-partials) instead of its expansion.
 * normal(y, mu, sigma), bernoulli_logit(y, alpha), poisson_log(y, alpha); y is taken to lie in the
 * family's support (the distributions check it outside the node).
 */
export const LPDF_FAMILIES = ["normal", "bernoulli_logit", "poisson_log"] as const;
export type LpdfFamily = (typeof LPDF_FAMILIES)[number];

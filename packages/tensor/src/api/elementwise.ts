import { floatOf, isFloat, promote, type DType } from "../ir/dtype.ts";
import { DTypeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { isIntegerBinary, OP_TRAITS, type BinaryOp, type CompareOp, type UnaryOp } from "../ir/ops.ts";
import { broadcastShapes } from "../ir/shape.ts";
import { checkOperand, lift, type Operand } from "./leaves.ts";

/** Convert a node to another dtype (identity when it already has it). */
export function cast(x: Node, dtype: DType): Node {
  return x.dtype === dtype ? x : Node.make("cast", dtype, x.shape, [x]);
}

// A bare number takes the dtype of the node it meets, as a weakly typed scalar does in JAX.
function operands(op: string, a: Operand, b: Operand): [Node, Node] {
  checkOperand(op, a);
  checkOperand(op, b);
  if (typeof a === "number" && typeof b === "number") return [lift(a), lift(b)];
  if (typeof a === "number") return [lift(a, (b as Node).dtype === "bool" ? "f64" : (b as Node).dtype), b as Node];
  if (typeof b === "number") return [a, lift(b, a.dtype === "bool" ? "f64" : a.dtype)];
  return [a, b];
}

// Ops defined on reals only (their trait `computes` is "float"): integer operands are computed in f64.
const floatOnly = (op: UnaryOp | BinaryOp): boolean => OP_TRAITS[op].computes === "float";

/** An elementwise op of one input. */
export function unary(op: UnaryOp, x: Operand): Node {
  checkOperand(op, x);
  let n = lift(x);
  if (op === "not") {
    if (n.dtype !== "bool") throw new DTypeError(`not: expects bool, got ${n.dtype}`);
    return Node.make(op, "bool", n.shape, [n]);
  }
  if (op === "is_nan" || op === "is_finite") return Node.make(op, "bool", n.shape, [isFloat(n.dtype) ? n : cast(n, "f64")]);
  if (floatOnly(op)) n = cast(n, floatOf(n.dtype));
  else if (n.dtype === "bool") n = cast(n, "i32");
  return Node.make(op, n.dtype, n.shape, [n]);
}

/** An arithmetic elementwise op of two inputs with NumPy broadcasting. */
export function binary(op: BinaryOp, a: Operand, b: Operand): Node {
  let [x, y] = operands(op, a, b);
  let dt = promote(x.dtype, y.dtype);
  if (dt === "bool") dt = "i32";
  if (floatOnly(op) && !isFloat(dt)) dt = "f64";
  x = cast(x, dt);
  y = cast(y, dt);
  const shape = broadcastShapes(op, x.shape, y.shape);
  if (isIntegerBinary(op) && dt !== "i32") throw new DTypeError(`${op}: expects i32 (or bool) operands, got ${dt}`);
  return Node.make(op, dt, shape, [x, y]);
}

/** A comparison or logical op; returns bool. */
export function compare(op: CompareOp, a: Operand, b: Operand): Node {
  let [x, y] = operands(op, a, b);
  if (op === "and" || op === "or") {
    if (x.dtype !== "bool" || y.dtype !== "bool") throw new DTypeError(`${op}: expects bool operands, got ${x.dtype} and ${y.dtype}`);
  } else {
    const dt = promote(x.dtype, y.dtype);
    x = cast(x, dt);
    y = cast(y, dt);
  }
  return Node.make(op, "bool", broadcastShapes(op, x.shape, y.shape), [x, y]);
}

/** Elementwise choice: cond ? a : b, with broadcasting of all three. */
export function select(cond: Node, a: Operand, b: Operand): Node {
  if (cond.dtype !== "bool") throw new DTypeError(`select: condition must be bool, got ${cond.dtype}`);
  let [x, y] = operands("select", a, b);
  const dt = promote(x.dtype, y.dtype);
  x = cast(x, dt);
  y = cast(y, dt);
  return Node.make("select", dt, broadcastShapes("select", cond.shape, x.shape, y.shape), [cond, x, y]);
}

/** The n-th derivative of digamma (n = 0 is digamma itself). */
export function polygamma(order: number, x: Operand): Node {
  if (!Number.isInteger(order) || order < 0) throw new DTypeError(`polygamma: order must be a non-negative integer, got ${order}`);
  let n = lift(x);
  n = cast(n, floatOf(n.dtype));
  return Node.make("polygamma", n.dtype, n.shape, [n], { order });
}

/**
 * The regularised incomplete beta function I_x(a, b) = B(x; a, b)/B(a, b), elementwise with
 * broadcasting of all three operands; NaN outside a, b > 0, 0 ≤ x ≤ 1.
 */
export function betainc(a: Operand, b: Operand, x: Operand): Node {
  // Bare numbers are weakly typed, as in binary(): they take the float type of the node operands.
  const given = [a, b, x].filter((v): v is Node => typeof v !== "number");
  const weak = given.length > 0 ? floatOf(given.map((n) => n.dtype).reduce(promote)) : "f64";
  const nodes = [a, b, x].map((v) => lift(v, weak));
  let dt = nodes.map((n) => n.dtype).reduce(promote);
  if (!isFloat(dt)) dt = "f64";
  const [na, nb, nx] = nodes.map((n) => cast(n, dt)) as [Node, Node, Node];
  return Node.make("betainc", dt, broadcastShapes("betainc", na.shape, nb.shape, nx.shape), [na, nb, nx]);
}

/** ∂I_x(a, b)/∂a (wrt = 0) or ∂I_x(a, b)/∂b (wrt = 1): betainc's gradient in its shapes; differentiable in x only. */
export function betaincGrad(a: Operand, b: Operand, x: Operand, wrt: 0 | 1): Node {
  if (wrt !== 0 && wrt !== 1) throw new DTypeError(`betaincGrad: wrt must be 0 (a) or 1 (b), got ${String(wrt)}`);
  const n = betainc(a, b, x);
  return Node.make("betainc_grad", n.dtype, n.shape, n.inputs, { wrt });
}

/** −x, elementwise. */
export const neg = (x: Operand) => unary("neg", x);
/** |x|, elementwise. */
export const abs = (x: Operand) => unary("abs", x);
/** The sign of x (−1, 0 or 1), elementwise. */
export const sign = (x: Operand) => unary("sign", x);
/** eˣ, elementwise. */
export const exp = (x: Operand) => unary("exp", x);
/** eˣ − 1, exact near 0, elementwise. */
export const expm1 = (x: Operand) => unary("expm1", x);
/** The natural logarithm of x, elementwise. */
export const log = (x: Operand) => unary("log", x);
/** log(1 + x), exact near 0, elementwise. */
export const log1p = (x: Operand) => unary("log1p", x);
/** √x, elementwise. */
export const sqrt = (x: Operand) => unary("sqrt", x);
/** 1/√x, elementwise. */
export const rsqrt = (x: Operand) => unary("rsqrt", x);
/** x², elementwise. */
export const square = (x: Operand) => unary("square", x);
/** 1/x, elementwise. */
export const reciprocal = (x: Operand) => unary("reciprocal", x);
/** sin x, elementwise. */
export const sin = (x: Operand) => unary("sin", x);
/** cos x, elementwise. */
export const cos = (x: Operand) => unary("cos", x);
/** tanh x, elementwise. */
export const tanh = (x: Operand) => unary("tanh", x);
/** The logistic function 1/(1 + e⁻ˣ), elementwise. */
export const sigmoid = (x: Operand) => unary("sigmoid", x);
/** log(1 + eˣ), without overflow, elementwise. */
export const softplus = (x: Operand) => unary("softplus", x);
/** log σ(x) = −softplus(−x), without overflow, elementwise. */
export const logSigmoid = (x: Operand) => unary("log_sigmoid", x);
/** The error function, elementwise. */
export const erf = (x: Operand) => unary("erf", x);
/** The complementary error function 1 − erf(x), exact in the tail, elementwise. */
export const erfc = (x: Operand) => unary("erfc", x);
/** log |Γ(x)|, elementwise. */
export const lgamma = (x: Operand) => unary("lgamma", x);
/** The standard normal quantile Φ⁻¹(p). */
export const invPhi = (p: Operand) => unary("inv_phi", p);
/** ψ(x), the derivative of log Γ, elementwise. */
export const digamma = (x: Operand) => polygamma(0, x);
/** ψ′(x), elementwise. */
export const trigamma = (x: Operand) => polygamma(1, x);
/** ⌊x⌋, elementwise. */
export const floor = (x: Operand) => unary("floor", x);
/** ⌈x⌉, elementwise. */
export const ceil = (x: Operand) => unary("ceil", x);
/** Logical not of a boolean tensor, elementwise. */
export const not = (x: Operand) => unary("not", x);
/** True where x is NaN (bool); integers never are. */
export const isNan = (x: Operand) => unary("is_nan", x);
/** True where x is neither NaN nor ±∞ (bool). */
export const isFinite = (x: Operand) => unary("is_finite", x);
/** Identity whose gradient is zero. */
export const stopGradient = (x: Operand) => unary("stop_gradient", x);

/** a + b, elementwise with broadcasting. */
export const add = (a: Operand, b: Operand) => binary("add", a, b);
/** a − b, elementwise with broadcasting. */
export const sub = (a: Operand, b: Operand) => binary("sub", a, b);
/** a · b, elementwise with broadcasting. */
export const mul = (a: Operand, b: Operand) => binary("mul", a, b);
/** a / b, elementwise with broadcasting. */
export const div = (a: Operand, b: Operand) => binary("div", a, b);
/** aᵇ, elementwise with broadcasting. */
export const pow = (a: Operand, b: Operand) => binary("pow", a, b);
/** The larger of a and b, elementwise with broadcasting. */
export const maximum = (a: Operand, b: Operand) => binary("max", a, b);
/** The smaller of a and b, elementwise with broadcasting. */
export const minimum = (a: Operand, b: Operand) => binary("min", a, b);
/** The angle of the point (b, a), atan2(a, b), elementwise with broadcasting. */
export const atan2 = (a: Operand, b: Operand) => binary("atan2", a, b);
/** Remainder with the sign of the divisor (Python's %). */
export const mod = (a: Operand, b: Operand) => binary("mod", a, b);
/** Regularised lower incomplete gamma P(a, x), differentiable in both arguments. */
export const gammaP = (a: Operand, x: Operand) => binary("gamma_p", a, x);
/** Regularised upper incomplete gamma Q(a, x) = 1 − P(a, x), accurate where it is small. */
export const gammaQ = (a: Operand, x: Operand) => binary("gamma_q", a, x);
/** ∂P(a, x)/∂a, the derivative of gammaP in its shape (the gradient rule's building block); differentiable in x only. */
export const gammaPDa = (a: Operand, x: Operand) => binary("gamma_p_da", a, x);
/** Owen's T function T(h, a) = (1/2π)∫₀ᵃ exp(−h²(1+t²)/2)/(1+t²) dt. */
export const owensT = (h: Operand, a: Operand) => binary("owens_t", h, a);
/** Integer division truncated toward zero (Stan's %/); i32 only, 0 for a zero divisor. */
export const quotient = (a: Operand, b: Operand) => binary("quotient", a, b);
/** Integer remainder with the sign of the dividend (Stan's and C's %); i32 only, a for a zero divisor. */
export const remainder = (a: Operand, b: Operand) => binary("remainder", a, b);
/** Bitwise and of i32 values. */
export const bitAnd = (a: Operand, b: Operand) => binary("bit_and", a, b);
/** Bitwise or of i32 values. */
export const bitOr = (a: Operand, b: Operand) => binary("bit_or", a, b);
/** Bitwise exclusive or of i32 values. */
export const bitXor = (a: Operand, b: Operand) => binary("bit_xor", a, b);
/** Bitwise complement of an i32 value (xor with all ones). */
export const bitNot = (a: Operand) => binary("bit_xor", a, -1);
/** a·2^b for i32 a, the count b taken mod 32 (bits shifted out are lost). */
export const shiftLeft = (a: Operand, b: Operand) => binary("shift_left", a, b);
/** Arithmetic right shift of i32 a by b mod 32 (floor(a / 2^b)). */
export const shiftRight = (a: Operand, b: Operand) => binary("shift_right", a, b);

/** a < b as a boolean tensor, elementwise with broadcasting. */
export const lt = (a: Operand, b: Operand) => compare("lt", a, b);
/** a ≤ b as a boolean tensor, elementwise with broadcasting. */
export const le = (a: Operand, b: Operand) => compare("le", a, b);
/** a > b as a boolean tensor, elementwise with broadcasting. */
export const gt = (a: Operand, b: Operand) => compare("gt", a, b);
/** a ≥ b as a boolean tensor, elementwise with broadcasting. */
export const ge = (a: Operand, b: Operand) => compare("ge", a, b);
/** a = b as a boolean tensor, elementwise with broadcasting. */
export const eq = (a: Operand, b: Operand) => compare("eq", a, b);
/** a ≠ b as a boolean tensor, elementwise with broadcasting. */
export const ne = (a: Operand, b: Operand) => compare("ne", a, b);
/** Logical and of two boolean tensors, elementwise with broadcasting. */
export const and = (a: Operand, b: Operand) => compare("and", a, b);
/** Logical or of two boolean tensors, elementwise with broadcasting. */
export const or = (a: Operand, b: Operand) => compare("or", a, b);

import {
  add, betaincGrad, cast, cos, div, eq, erf, exp, floor, gammaPDa, gt, lgamma, log, log1p, lt, mul, neg, polygamma, pow, select, sigmoid,
  sign, sin, square, sub,
} from "../../api/elementwise.ts";
import { isFloat } from "../../ir/dtype.ts";
import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import type { BinaryOp, UnaryOp } from "../../ir/ops.ts";
import type { VjpRule } from "../rule.ts";
import { unbroadcast } from "../unbroadcast.ts";

/** Cotangent of the input of a unary op from x (its input), y (its output) and ct; null: no gradient. */
type UnaryVjp = (x: Node, y: Node, ct: Node) => Node | null;

const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);
const SQRT_TWO_PI = Math.sqrt(2 * Math.PI);
const INV_SQRT_TWO_PI = 1 / SQRT_TWO_PI;

// Piecewise-constant ops (sign, floor, ceil) and stop_gradient have zero derivative: no cotangent.
const UNARY_VJP: Record<UnaryOp, UnaryVjp> = {
  neg: (_x, _y, ct) => neg(ct),
  // abs'(0) = 0, as sign(0) = 0: the subgradient that keeps |x| stationary at its minimum.
  abs: (x, _y, ct) => mul(ct, sign(x)),
  sign: () => null,
  exp: (_x, y, ct) => mul(ct, y),
  expm1: (_x, y, ct) => mul(ct, add(y, 1)),
  log: (x, _y, ct) => div(ct, x),
  log1p: (x, _y, ct) => div(ct, add(x, 1)),
  sqrt: (_x, y, ct) => div(mul(ct, 0.5), y),
  // d/dx x^(-1/2) = -y / (2x)
  rsqrt: (x, y, ct) => mul(ct, div(mul(y, -0.5), x)),
  square: (x, _y, ct) => mul(ct, mul(x, 2)),
  reciprocal: (_x, y, ct) => neg(mul(ct, square(y))),
  sin: (x, _y, ct) => mul(ct, cos(x)),
  cos: (x, _y, ct) => neg(mul(ct, sin(x))),
  tanh: (_x, y, ct) => mul(ct, sub(1, square(y))),
  sigmoid: (_x, y, ct) => mul(ct, mul(y, sub(1, y))),
  softplus: (x, _y, ct) => mul(ct, sigmoid(x)),
  log_sigmoid: (x, _y, ct) => mul(ct, sigmoid(neg(x))),
  erf: (x, _y, ct) => mul(ct, mul(TWO_OVER_SQRT_PI, exp(neg(square(x))))),
  erfc: (x, _y, ct) => mul(ct, mul(-TWO_OVER_SQRT_PI, exp(neg(square(x))))),
  lgamma: (x, _y, ct) => mul(ct, polygamma(0, x)),
  // dΦ⁻¹/dp = 1/φ(Φ⁻¹(p)) = √(2π)·exp(y²/2).
  inv_phi: (_x, y, ct) => mul(ct, mul(SQRT_TWO_PI, exp(mul(0.5, square(y))))),
  floor: () => null,
  ceil: () => null,
  not: () => null,
  is_nan: () => null,
  is_finite: () => null,
  stop_gradient: () => null,
};

/** The rule of a unary op. */
export function unaryRule(op: UnaryOp): VjpRule {
  const f = UNARY_VJP[op];
  return (node, ct) => [isFloat(node.dtype) ? f(node.inputs[0]!, node, ct) : null];
}

/** polygamma(n, x) → polygamma(n + 1, x). */
export const polygammaRule: VjpRule = (node, ct) => [mul(ct, polygamma(node.attrs.order! + 1, node.inputs[0]!))];

/** Cotangents of both operands of a binary op before unbroadcasting (output shape). */
type BinaryVjp = (a: Node, b: Node, y: Node, ct: Node) => [Node | null, Node | null];

// Weight of the first operand in max/min: 1 where it wins, 1/2 at ties (the tie is split evenly,
// so max(x, x) has derivative 1 in x and the rule is symmetric in its operands).
function winnerWeight(wins: Node, ties: Node, dtype: Node["dtype"]): Node {
  return add(cast(wins, dtype), mul(cast(ties, dtype), 0.5));
}

// Integer ops: binaryRule never reaches them (their outputs are i32), but the table is total.
const integerOp: BinaryVjp = () => [null, null];

const BINARY_VJP: Record<BinaryOp, BinaryVjp> = {
  quotient: integerOp,
  remainder: integerOp,
  bit_and: integerOp,
  bit_or: integerOp,
  bit_xor: integerOp,
  shift_left: integerOp,
  shift_right: integerOp,
  add: (_a, _b, _y, ct) => [ct, ct],
  sub: (_a, _b, _y, ct) => [ct, neg(ct)],
  mul: (a, b, _y, ct) => [mul(ct, b), mul(ct, a)],
  div: (_a, b, y, ct) => {
    const ca = div(ct, b);
    return [ca, neg(mul(ca, y))];
  },
  pow: (a, b, y, ct) => {
    // d/da a^b = b·a^(b−1), taken as 0 where b = 0 (a^0 is constant even at a = 0, where 0·0^−1 would be NaN).
    const da = select(eq(b, 0), 0, mul(b, pow(a, sub(b, 1))));
    // d/db a^b = a^b·log a for a > 0, and 0 elsewhere: at a = 0 the value is constant (0 or 1) in b,
    // and for a < 0 the real power exists only at integer b, where no derivative in b exists.
    // log reads a guarded base, so neither branch produces NaN, not even in second derivatives.
    const positive = gt(a, 0);
    const db = select(positive, mul(y, log(select(positive, a, 1))), 0);
    return [mul(ct, da), mul(ct, db)];
  },
  max: (a, b, _y, ct) => {
    const wa = winnerWeight(gt(a, b), eq(a, b), ct.dtype);
    return [mul(ct, wa), mul(ct, sub(1, wa))];
  },
  min: (a, b, _y, ct) => {
    const wa = winnerWeight(lt(a, b), eq(a, b), ct.dtype);
    return [mul(ct, wa), mul(ct, sub(1, wa))];
  },
  atan2: (a, b, _y, ct) => {
    const r = div(ct, add(square(a), square(b)));
    return [mul(r, b), neg(mul(r, a))];
  },
  // mod(a, b) = a − b·floor(a/b): slope 1 in a, −floor(a/b) in b (away from the jumps).
  mod: (a, b, _y, ct) => [ct, neg(mul(ct, floor(div(a, b))))],
  // ∂P/∂x = x^(a−1)·e^(−x)/Γ(a) and ∂P/∂a from its own op; Q = 1 − P.
  gamma_p: (a, x, _y, ct) => [mul(ct, gammaPDa(a, x)), mul(ct, gammaDensity(a, x))],
  gamma_q: (a, x, _y, ct) => [neg(mul(ct, gammaPDa(a, x))), neg(mul(ct, gammaDensity(a, x)))],
  // ∂/∂x ∂P/∂a = ∂/∂a of the density = density·(log x − ψ(a)); the second derivative in a is refused in binaryRule.
  gamma_p_da: (a, x, _y, ct) => [null, mul(ct, mul(gammaDensity(a, x), sub(log(x), polygamma(0, a))))],
  // ∂T/∂h = −φ(h)·erf(ah/√2)/2 and ∂T/∂a = exp(−h²(1+a²)/2) / (2π(1+a²)), from differentiating the integral.
  owens_t: (h, a, _y, ct) => {
    const dh = mul(mul(-0.5 * INV_SQRT_TWO_PI, exp(mul(-0.5, square(h)))), erf(mul(mul(a, h), Math.SQRT1_2)));
    const q = add(1, square(a));
    const da = div(exp(mul(mul(-0.5, square(h)), q)), mul(2 * Math.PI, q));
    return [mul(ct, dh), mul(ct, da)];
  },
};

// x^(a−1)·e^(−x)/Γ(a), taken in logs so that large a and x do not overflow.
function gammaDensity(a: Node, x: Node): Node {
  return exp(sub(sub(mul(sub(a, 1), log(x)), x), lgamma(a)));
}

// ∂P/∂a is differentiated in x only: a second derivative in the shape (which no sampler needs) is not implemented.
const NO_GRADIENT_IN_FIRST = new Set<BinaryOp>(["gamma_p_da"]);

function refuseShapeGradient(op: string, which: string, missing: string): never {
  throw new GraphError(
    `${op}: no gradient with respect to ${which} (${missing} are not implemented); it is differentiated in x only, so ` +
      `${which} must be data or a constant, not a function of a parameter`,
  );
}

/** The rule of a binary op: the operand cotangents, summed back over broadcast axes. */
export function binaryRule(op: BinaryOp): VjpRule {
  const f = BINARY_VJP[op];
  return (node, ct, needed) => {
    if (!isFloat(node.dtype)) return [null, null];
    if (NO_GRADIENT_IN_FIRST.has(op) && needed?.[0]) refuseShapeGradient(op, "its shape a (the first argument)", "second derivatives in a");
    const [a, b] = node.inputs as [Node, Node];
    const [ca, cb] = f(a, b, node, ct);
    return [ca && unbroadcast(ca, a.shape), cb && unbroadcast(cb, b.shape)];
  };
}

// x^(a−1)(1−x)^(b−1)/B(a, b), ∂I_x(a, b)/∂x.
function betaDensity(a: Node, b: Node, x: Node): Node {
  const lbeta = sub(add(lgamma(a), lgamma(b)), lgamma(add(a, b)));
  return exp(sub(add(mul(sub(a, 1), log(x)), mul(sub(b, 1), log1p(neg(x)))), lbeta));
}

/** betainc(a, b, x): ∂I/∂x is the beta density, ∂I/∂a and ∂I/∂b come from betainc_grad (only where needed). */
export const betaincRule: VjpRule = (node, ct, needed) => {
  if (!isFloat(node.dtype)) return [null, null, null];
  const [a, b, x] = node.inputs as [Node, Node, Node];
  const shape = (k: 0 | 1, v: Node) => (needed?.[k] === false ? null : unbroadcast(mul(ct, betaincGrad(a, b, x, k)), v.shape));
  return [shape(0, a), shape(1, b), unbroadcast(mul(ct, betaDensity(a, b, x)), x.shape)];
};

/**
 * betainc_grad(a, b, x): differentiated in x, where ∂/∂x of ∂I/∂a is the density times
 * log x − ψ(a) + ψ(a + b) (and log(1 − x) − ψ(b) + ψ(a + b) for b); second derivatives in the
 * shapes (which no sampler needs) are refused.
 */
export const betaincGradRule: VjpRule = (node, ct, needed) => {
  if (!isFloat(node.dtype)) return [null, null, null];
  if (needed?.[0] || needed?.[1]) refuseShapeGradient("betainc_grad", "its shapes a and b (the first two arguments)", "second derivatives in the shapes");
  const [a, b, x] = node.inputs as [Node, Node, Node];
  const psab = polygamma(0, add(a, b));
  const factor = node.attrs.wrt === 0 ? add(sub(log(x), polygamma(0, a)), psab) : add(sub(log1p(neg(x)), polygamma(0, b)), psab);
  return [null, null, unbroadcast(mul(ct, mul(betaDensity(a, b, x), factor)), x.shape)];
};

/** Comparisons and logical ops are piecewise constant: no cotangents. */
export const compareRule: VjpRule = () => [null, null];

/** select(c, a, b): the cotangent goes to a where c holds and to b elsewhere; c gets none. */
export const selectRule: VjpRule = (node, ct) => {
  if (!isFloat(node.dtype)) return [null, null, null];
  const [c, a, b] = node.inputs as [Node, Node, Node];
  return [null, unbroadcast(select(c, ct, 0), a.shape), unbroadcast(select(c, 0, ct), b.shape)];
};

/** cast: the cotangent is cast back to the input's float type; integer and bool inputs get none. */
export const castRule: VjpRule = (node, ct) => {
  const x = node.inputs[0]!;
  return [isFloat(x.dtype) && isFloat(node.dtype) ? cast(ct, x.dtype) : null];
};

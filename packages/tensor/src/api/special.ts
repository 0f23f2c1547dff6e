import { floatOf, type DType } from "../ir/dtype.ts";
import type { Node } from "../ir/node.ts";
import {
  add, cast, erfc, exp, expm1, gt, log, log1p, lt, mul, neg, reciprocal, select, square, sub,
} from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";

/**
 * Normal-distribution helpers composed from existing ops (erfc, log1p, expm1, select), each
 * branch reading a clamped input so the branch that is not taken never produces a NaN that a
 * gradient would multiply by zero.
 */

const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

function floatNode(x: Operand): Node {
  const n = lift(x);
  return cast(n, floatOf(n.dtype));
}

// x clamped to [lo, hi] with select rather than max/min, whose gradient splits at ties: at the
// clamp point the branch that is taken must see the full gradient of x.
function clamp(x: Node, lo: number, hi: number): Node {
  return select(lt(x, lo), lo, select(gt(x, hi), hi, x));
}

/** Φ(x), the standard normal CDF, as erfc(−x/√2)/2 (relatively accurate in the lower tail). */
export function Phi(x: Operand): Node {
  return mul(0.5, erfc(mul(floatNode(x), -Math.SQRT1_2)));
}

// Below this the lower tail switches to its asymptotic expansion: where erfc is still far from
// underflow in the dtype and the six-term series is accurate to about the dtype's precision in log Φ.
function tailStart(dtype: DType): number {
  return dtype === "f32" ? -8 : -20;
}

/**
 * log Φ(x) without underflow or cancellation: log1p(−Q(x)) above 0, log(erfc(−x/√2)/2) down to the
 * tail, and below it the asymptotic series log Φ(x) = −x²/2 − log(−x) − ½log 2π + log(1 − 1/x² + 3/x⁴ − …).
 */
export function logPhi(x: Operand): Node {
  const z = floatNode(x);
  const t = tailStart(z.dtype);
  const upper = log1p(mul(-0.5, erfc(mul(clamp(z, 0, Infinity), Math.SQRT1_2))));
  const middle = log(mul(0.5, erfc(mul(clamp(z, t, 0), -Math.SQRT1_2))));
  const zt = clamp(z, -Infinity, t);
  const r = reciprocal(square(zt));
  // 1 + Σₖ (−1)ᵏ (2k−1)!! / x^{2k}, k = 1..5, in Horner form.
  let series: Node = mul(r, -945);
  for (const c of [105, -15, 3, -1]) series = mul(r, add(series, c));
  const tailValue = add(sub(sub(mul(-0.5, square(zt)), log(neg(zt))), HALF_LOG_TWO_PI), log1p(series));
  return select(gt(z, 0), upper, select(lt(z, t), tailValue, middle));
}

/** log(1 − exp(x)) for x ≤ 0, from expm1 near 0 and log1p further out (Mächler's switch at −log 2). */
export function log1mExp(x: Operand): Node {
  const v = floatNode(x);
  const near = gt(v, -Math.LN2);
  return select(near, log(neg(expm1(clamp(v, -Math.LN2, 0)))), log1p(neg(exp(clamp(v, -Infinity, -Math.LN2)))));
}

/** log(exp(a) − exp(b)) for a ≥ b, stably: a + log1mExp(b − a); −∞ when a = b. */
export function logDiffExp(a: Operand, b: Operand): Node {
  return add(a, log1mExp(sub(b, a)));
}

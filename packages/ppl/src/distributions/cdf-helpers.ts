import {
  add, and, betainc, div, eq, gt, log, log1p, lt, mul, neg, select, square, sub, type Node, type Operand,
} from "@ppl/tensor";
import { lift } from "@ppl/tensor/internals";

/**
 * Pieces shared by the distributions' log CDFs (lcdf) and log complementary CDFs (lccdf).
 * Every branch that a select does not take reads an input clamped into its domain, so that
 * neither its value nor its gradient is NaN (a NaN gradient times a zero mask is still NaN).
 */

/**
 * `value(xs)` where x > bound (xs: x there, `safe` elsewhere) and `outside` where x ≤ bound:
 * how a CDF of a distribution on (bound, ∞) treats points below its support. The bound may be a
 * node (Pareto's y_min), and then `safe` is one too, a point above it.
 */
export function above(x: Operand, bound: Operand, safe: Operand, value: (xs: Node) => Node, outside: number): Node {
  const xn = lift(x);
  const inside = gt(xn, bound);
  return select(inside, value(select(inside, xn, safe)), outside);
}

/** As `above`, for points inside (lo, hi), with `low` below and `high` above. */
export function within(x: Operand, lo: number, hi: number, safe: number, value: (xs: Node) => Node, low: number, high: number): Node {
  const xn = lift(x);
  const inside = and(gt(xn, lo), lt(xn, hi));
  const v = value(select(inside, xn, safe));
  return select(inside, v, select(gt(xn, lo), high, low));
}

/**
 * P(T > |t|) for Student's t with nu degrees of freedom, from the incomplete beta function in the
 * form that is accurate at that |t|: ½·I_{ν/(ν+t²)}(ν/2, ½) in the tails (a small probability
 * computed directly) and ½ − ½·I_{t²/(ν+t²)}(½, ν/2) near the centre.
 */
export function studentTTail(t: Node, nu: Operand): Node {
  // At t = 0 exactly the centre form's derivative is ∞·0: nudging t by a negligible amount (far
  // below the dtype's resolution of the CDF) gives the one-sided slope, which equals the density.
  const nudge = t.dtype === "f32" ? 1e-15 : 1e-100;
  t = add(t, select(eq(t, 0), nudge, 0));
  const t2 = square(t);
  const denom = add(nu, t2);
  const far = gt(t2, nu);
  // Each form reads its argument clamped to the side it is used on.
  const u = select(far, div(nu, denom), 0.5);
  const w = select(far, 0.5, div(t2, denom));
  const tail = mul(0.5, betainc(mul(0.5, nu), 0.5, u));
  const centre = sub(0.5, mul(0.5, betainc(0.5, mul(0.5, nu), w)));
  return select(far, tail, centre);
}

/** log of the lower tail of Student's t at t (log P(T ≤ t)) and of the upper tail (log P(T > t)). */
export function studentTLogTails(t: Node, nu: Operand): { lower: Node; upper: Node } {
  const tail = studentTTail(t, nu);
  const negative = lt(t, 0);
  const lower = select(negative, log(tail), log1p(neg(tail)));
  const upper = select(negative, log1p(neg(tail)), log(tail));
  return { lower, upper };
}

import { ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt } from "../ir/shape.ts";
import { add, div, exp, gt, mul, neg, select, sin, sqrt, square } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { sum } from "./reduce.ts";
import { reshape } from "./shape-ops.ts";

// Stan's stationary covariance functions as compositions: the n × m matrix of k(x1_i, x2_j) for
// points that are reals (x of shape [n]) or vectors (x of shape [n, d]). Gradients in the points,
// the magnitude alpha and the length scale rho come from the ops; the distance's square root is
// guarded at 0 (the diagonal), where each kernel is flat in the distance but sqrt's slope is infinite.

// Squared Euclidean distances between the rows of x1 and x2 (n × m).
function squaredDistances(op: string, x1: Node, x2: Node): Node {
  const points = (x: Node) => (x.rank === 1 ? reshape(x, [x.shape[0]!, 1]) : x);
  const [a, b] = [points(x1), points(x2)];
  if (a.rank !== 2 || b.rank !== 2 || a.shape[1] !== b.shape[1]) {
    throw new ShapeError(`${op}: points must be [n] or [n, d] with the same d, got ${fmt(x1.shape)} and ${fmt(x2.shape)}`);
  }
  const [n, d] = a.shape as [number, number];
  const m = b.shape[0]!;
  return sum(square(add(reshape(a, [n, 1, d]), neg(reshape(b, [1, m, d])))), -1);
}

// √s with a zero slope at s = 0 instead of an infinite one (the select keeps sqrt away from 0).
function distance(sq: Node): Node {
  const positive = gt(sq, 0);
  return select(positive, sqrt(select(positive, sq, 1)), 0);
}

/** alpha²·exp(−|x1 − x2|²/(2·rho²)) (Stan's gp_exp_quad_cov); x2 defaults to x1. */
export function gpExpQuadCov(x1: Operand, alpha: Operand, rho: Operand, x2: Operand = x1): Node {
  const sq = squaredDistances("gpExpQuadCov", lift(x1), lift(x2));
  return mul(square(alpha), exp(div(sq, mul(-2, square(rho)))));
}

/** alpha²·(1 + √3·r/rho)·exp(−√3·r/rho), r = |x1 − x2| (Stan's gp_matern32_cov); x2 defaults to x1. */
export function gpMatern32Cov(x1: Operand, alpha: Operand, rho: Operand, x2: Operand = x1): Node {
  const r = distance(squaredDistances("gpMatern32Cov", lift(x1), lift(x2)));
  const t = div(mul(Math.sqrt(3), r), rho);
  return mul(mul(square(alpha), add(1, t)), exp(neg(t)));
}

/** alpha²·exp(−2·sin²(π·r/period)/rho²), r = |x1 − x2| (Stan's gp_periodic_cov); x2 defaults to x1. */
export function gpPeriodicCov(x1: Operand, alpha: Operand, rho: Operand, period: Operand, x2: Operand = x1): Node {
  const r = distance(squaredDistances("gpPeriodicCov", lift(x1), lift(x2)));
  const s = sin(div(mul(Math.PI, r), period));
  return mul(square(alpha), exp(div(mul(-2, square(s)), square(rho))));
}

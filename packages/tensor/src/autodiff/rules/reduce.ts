import { cast, div, eq, exp, mul, select, sub } from "../../api/elementwise.ts";
import { prod, sum } from "../../api/reduce.ts";
import { broadcastTo, reshape } from "../../api/shape-ops.ts";
import { isFloat } from "../../ir/dtype.ts";
import type { Node } from "../../ir/node.ts";
import type { ReduceOp } from "../../ir/ops.ts";
import type { VjpRule } from "../rule.ts";

/** A reduced tensor (or its cotangent) broadcast back over the reduced axes to the input's shape. */
function expandBack(t: Node, input: Node, axes: readonly number[]): Node {
  const kept = input.shape.map((d, i) => (axes.includes(i) ? 1 : d));
  return broadcastTo(reshape(t, kept), input.shape);
}

type ReduceVjp = (x: Node, y: Node, ct: Node, axes: readonly number[]) => Node;

const REDUCE_VJP: Record<ReduceOp, ReduceVjp> = {
  reduce_sum: (x, _y, ct, axes) => expandBack(ct, x, axes),
  reduce_prod: (x, _y, ct, axes) => {
    // ∂/∂x_i Π x = Π_{j≠i} x_j, computed without dividing by zero: with no zero in the slice it is
    // P/x_i (P the product of the nonzero entries); with exactly one zero, it is P at that zero and
    // 0 elsewhere; with two or more zeros it is 0 everywhere.
    const isZero = eq(x, 0);
    const safe = select(isZero, 1, x);
    const p = expandBack(prod(safe, axes), x, axes);
    const zeros = expandBack(sum(cast(isZero, "i32"), axes), x, axes);
    const atZero = select(eq(zeros, 1), p, 0);
    const atNonzero = select(eq(zeros, 0), div(p, safe), 0);
    return mul(expandBack(ct, x, axes), select(isZero, atZero, atNonzero));
  },
  reduce_max: (x, y, ct, axes) => extremumVjp(x, y, ct, axes),
  reduce_min: (x, y, ct, axes) => extremumVjp(x, y, ct, axes),
  // d logsumexp / dx = softmax(x).
  reduce_logsumexp: (x, y, ct, axes) => mul(expandBack(ct, x, axes), exp(sub(x, expandBack(y, x, axes)))),
};

// Max and min: the cotangent is shared evenly among the entries that attain the extremum.
function extremumVjp(x: Node, y: Node, ct: Node, axes: readonly number[]): Node {
  const mask = cast(eq(x, expandBack(y, x, axes)), x.dtype);
  const count = expandBack(sum(mask, axes), x, axes);
  return mul(expandBack(ct, x, axes), div(mask, count));
}

/** The rule of a reduction; integer reductions get no cotangent. */
export function reduceRule(op: ReduceOp): VjpRule {
  const f = REDUCE_VJP[op];
  return (node, ct) => [isFloat(node.dtype) ? f(node.inputs[0]!, node, ct, node.attrs.axes!) : null];
}

import { DTypeError, ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { fmt, normalizeAxes, sameShape } from "../ir/shape.ts";
import { add, mul, neg } from "./elementwise.ts";
import { iota } from "./iota.ts";
import { lift, type Operand } from "./leaves.ts";
import { gather, reshape, transpose } from "./shape-ops.ts";

/**
 * The indices (i32) that sort x along `axis` (the last by default): ascending, ties in index
 * order (a stable sort), NaN last; `descending` sorts −x, so ties still keep index order.
 */
export function argsort(x: Operand, axis = -1, descending = false): Node {
  let n = lift(x);
  if (n.dtype === "bool") throw new DTypeError("argsort: expects numbers, got bool");
  if (descending) n = neg(n);
  const [ax] = normalizeAxes("argsort", [axis], n.rank);
  return Node.make("argsort", "i32", n.shape, [n], { axis: ax! });
}

/**
 * x[…, indices[…, i, …], …] along `axis`, with indices of x's shape (NumPy's take_along_axis):
 * one gather of the flattened x at indices offset by their line, so its gradient is a scatter-add.
 */
export function takeAlongAxis(x: Operand, indices: Node, axis = -1): Node {
  const n = lift(x);
  if (indices.dtype !== "i32" || !sameShape(indices.shape, n.shape)) {
    throw new ShapeError(`takeAlongAxis: indices must be i32 of x's shape ${fmt(n.shape)}, got ${indices.dtype}${fmt(indices.shape)}`);
  }
  const [ax] = normalizeAxes("takeAlongAxis", [axis], n.rank);
  // Move the axis last, so that line l of length d starts at l·d in the flattened tensor.
  const perm = [...n.shape.keys()].filter((k) => k !== ax).concat([ax!]);
  const inv = perm.map((_, k) => perm.indexOf(k));
  const xt = transpose(n, perm), it = transpose(indices, perm);
  const d = n.shape[ax!]!, lines = n.size / Math.max(d, 1);
  const offsets = reshape(mul(iota(lines), d), [...xt.shape.slice(0, -1), 1]);
  const flat = gather(reshape(xt, [n.size]), reshape(add(it, offsets), [n.size]));
  return transpose(reshape(flat, xt.shape), inv);
}

/** x sorted along `axis` (ascending unless `descending`, NaN last): a gather through argsort, so its gradient is the permutation's. */
export function sort(x: Operand, axis = -1, descending = false): Node {
  const n = lift(x);
  return takeAlongAxis(n, argsort(n, axis, descending), axis);
}

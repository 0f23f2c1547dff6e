import { floatOf } from "../ir/dtype.ts";
import { Node } from "../ir/node.ts";
import type { ReduceOp } from "../ir/ops.ts";
import { normalizeAxes } from "../ir/shape.ts";
import { cast, div } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { reshape } from "./shape-ops.ts";

/** Axes to reduce: a number, a list, or undefined for all axes. */
export type Axes = number | readonly number[] | undefined;

function axesOf(op: string, x: Node, axes: Axes): number[] {
  if (axes === undefined) return x.shape.map((_, i) => i);
  return normalizeAxes(op, typeof axes === "number" ? [axes] : axes, x.rank);
}

/** A reduction over `axes` (all by default); `keepdims` leaves size-1 axes in place. */
export function reduce(op: ReduceOp, x: Operand, axes?: Axes, keepdims = false): Node {
  let n = lift(x);
  const ax = axesOf(op, n, axes);
  if (op === "reduce_logsumexp") n = cast(n, floatOf(n.dtype));
  else if (n.dtype === "bool") n = cast(n, "i32");
  const shape = n.shape.filter((_, i) => !ax.includes(i));
  const out = ax.length === 0 ? n : Node.make(op, n.dtype, shape, [n], { axes: ax });
  return keepdims ? reshape(out, n.shape.map((d, i) => (ax.includes(i) ? 1 : d))) : out;
}

/** The sum over `axes` (all by default), keeping them as size 1 with `keepdims`. */
export const sum = (x: Operand, axes?: Axes, keepdims = false) => reduce("reduce_sum", x, axes, keepdims);
/** The product over `axes` (all by default), keeping them as size 1 with `keepdims`. */
export const prod = (x: Operand, axes?: Axes, keepdims = false) => reduce("reduce_prod", x, axes, keepdims);
/** The largest element over `axes` (all by default), keeping them as size 1 with `keepdims`. */
export const max = (x: Operand, axes?: Axes, keepdims = false) => reduce("reduce_max", x, axes, keepdims);
/** The smallest element over `axes` (all by default), keeping them as size 1 with `keepdims`. */
export const min = (x: Operand, axes?: Axes, keepdims = false) => reduce("reduce_min", x, axes, keepdims);
/** log Σ exp(x) over `axes` (all by default) without overflow, keeping them as size 1 with `keepdims`. */
export const logsumexp = (x: Operand, axes?: Axes, keepdims = false) => reduce("reduce_logsumexp", x, axes, keepdims);

/** Arithmetic mean over `axes`. */
export function mean(x: Operand, axes?: Axes, keepdims = false): Node {
  const n = lift(x);
  const ax = axesOf("mean", n, axes);
  let count = 1;
  for (const a of ax) count *= n.shape[a]!;
  return div(sum(n, ax, keepdims), count);
}

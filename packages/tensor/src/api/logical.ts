import { DTypeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { gt } from "./elementwise.ts";
import { max, min, type Axes } from "./reduce.ts";

// any and all are the max and min of the bools read as 0/1 (reduce() reads bool as i32), so
// they need no op of their own and run wherever the reductions run.

function boolInput(op: string, x: Node): Node {
  if (x.dtype !== "bool") throw new DTypeError(`${op}: expects bool, got ${x.dtype} (compare first, e.g. ne(x, 0))`);
  return x;
}

/** True where some entry over `axes` (all by default) is true. */
export function any(x: Node, axes?: Axes, keepdims = false): Node {
  return gt(max(boolInput("any", x), axes, keepdims), 0);
}

/** True where every entry over `axes` (all by default) is true; true over an empty axis. */
export function all(x: Node, axes?: Axes, keepdims = false): Node {
  const n = boolInput("all", x);
  // The min of no entries is +∞ in floats but has no i32 value: an empty reduction is true by definition.
  if (n.shape.some((d) => d === 0)) return gt(max(n, axes, keepdims), -1);
  return gt(min(n, axes, keepdims), 0);
}

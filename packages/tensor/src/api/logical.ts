import { DTypeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { eq, gt, not } from "./elementwise.ts";
import { sum, type Axes } from "./reduce.ts";

// any and all count true entries (reduce() reads bool as i32), so they need no op of their own and
// run wherever the reductions run. A count starts from 0 on every backend, so the empty cases
// (any of nothing is false, all of nothing true) need no identity of max or min, and counts stay
// exact even where a GPU renderer keeps reduction states in f32 (up to 2²⁴ entries).

function boolInput(op: string, x: Node): Node {
  if (x.dtype !== "bool") throw new DTypeError(`${op}: expects bool, got ${x.dtype} (compare first, e.g. ne(x, 0))`);
  return x;
}

/** True where some entry over `axes` (all by default) is true. */
export function any(x: Node, axes?: Axes, keepdims = false): Node {
  return gt(sum(boolInput("any", x), axes, keepdims), 0);
}

/** True where every entry over `axes` (all by default) is true; true over an empty axis. */
export function all(x: Node, axes?: Axes, keepdims = false): Node {
  return eq(sum(not(boolInput("all", x)), axes, keepdims), 0);
}

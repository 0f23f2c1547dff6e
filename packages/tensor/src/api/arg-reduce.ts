import { isFloat } from "../ir/dtype.ts";
import type { Node } from "../ir/node.ts";
import { normalizeAxes } from "../ir/shape.ts";
import { eq, isNan, or, select } from "./elementwise.ts";
import { iota } from "./iota.ts";
import { lift, type Operand } from "./leaves.ts";
import { max, min } from "./reduce.ts";
import { reshape } from "./shape-ops.ts";

// argmax(x) = min over the axis of (i where x_i equals the max, else n): the first index of the
// extreme, as NumPy gives, in three passes of O(n) each. A NaN counts as the extreme (NumPy's rule),
// since the max and min propagate NaN.
function argExtreme(op: "argmax" | "argmin", x: Operand, axis: number, keepdims: boolean): Node {
  const n = lift(x);
  const [ax] = normalizeAxes(op, [axis], n.rank);
  const d = n.shape[ax!]!;
  const extreme = op === "argmax" ? max(n, ax, true) : min(n, ax, true);
  const hit = isFloat(n.dtype) ? or(eq(n, extreme), isNan(n)) : eq(n, extreme);
  const positions = reshape(iota(d), n.shape.map((s, i) => (i === ax ? s : 1)));
  return min(select(hit, positions, d), ax, keepdims);
}

/** Index (i32) of the first largest entry along `axis` (the last by default); NaN counts as largest. */
export const argmax = (x: Operand, axis = -1, keepdims = false): Node => argExtreme("argmax", x, axis, keepdims);

/** Index (i32) of the first smallest entry along `axis` (the last by default); NaN counts as smallest. */
export const argmin = (x: Operand, axis = -1, keepdims = false): Node => argExtreme("argmin", x, axis, keepdims);

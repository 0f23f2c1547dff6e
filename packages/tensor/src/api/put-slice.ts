import { ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt, sizeOf } from "../ir/shape.ts";
import { cast, select } from "./elementwise.ts";
import { constant, lift, type Operand } from "./leaves.ts";
import { pad } from "./shape-ops.ts";
import { promote } from "../ir/dtype.ts";

/**
 * x with the block at `starts` (one start per axis, block shape = values.shape) replaced by values
 * (scatter-set). A select between x and the padded values, so its gradient splits the cotangent:
 * x receives it outside the block, values inside.
 */
export function putSlice(x: Operand, values: Operand, starts: readonly number[]): Node {
  const xn = lift(x);
  const dt = promote(xn.dtype, lift(values, xn.dtype).dtype);
  const base = cast(xn, dt);
  const v = cast(lift(values, dt), dt);
  if (v.rank !== base.rank || starts.length !== base.rank) {
    throw new ShapeError(`putSlice: values ${fmt(v.shape)} and ${starts.length} starts do not match x ${fmt(base.shape)}`);
  }
  const widths = base.shape.map((d, i) => {
    const s = starts[i]!, len = v.shape[i]!;
    if (!Number.isInteger(s) || s < 0 || s + len > d) {
      throw new ShapeError(`putSlice: a block of ${fmt(v.shape)} at [${starts.join(", ")}] does not fit in ${fmt(base.shape)}`);
    }
    return [s, d - s - len] as const;
  });
  // An empty block changes nothing (and a pad of an empty tensor would read no input at all).
  if (sizeOf(v.shape) === 0) return base;
  const inside = pad(constant(1, v.shape, "bool"), widths, 0);
  return select(inside, pad(v, widths, 0), base);
}

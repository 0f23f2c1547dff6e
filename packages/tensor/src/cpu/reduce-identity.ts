import type { DType } from "../ir/dtype.ts";
import type { Node } from "../ir/node.ts";

/**
 * The value a reduction starts from, which is also its value over no entries. ±∞ has no i32
 * value (rounding would make it 0), so integer max and min start from the i32 extremes, as the
 * GPU kernels do.
 */
export function reduceIdentity(op: Node["op"], dtype: DType): number {
  switch (op) {
    case "reduce_prod": return 1;
    case "reduce_max": return dtype === "i32" ? -2147483648 : -Infinity;
    case "reduce_min": return dtype === "i32" ? 2147483647 : Infinity;
    case "reduce_logsumexp": return -Infinity;
    default: return 0;
  }
}

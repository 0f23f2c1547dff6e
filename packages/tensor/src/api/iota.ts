import type { DType } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { cast, eq } from "./elementwise.ts";
import { constant } from "./leaves.ts";
import { reshape } from "./shape-ops.ts";

function size(op: string, n: number): number {
  if (!Number.isInteger(n) || n < 0) throw new ShapeError(`${op}: a size must be a non-negative integer, got ${n}`);
  return n;
}

/** The vector 0, 1, …, n − 1 (i32 by default). */
export function iota(n: number, dtype: DType = "i32"): Node {
  return constant(Array.from({ length: size("iota", n) }, (_, i) => i), [n], dtype);
}

/** The n × m identity matrix (m = n by default): ones where row = column, built from iota and eq. */
export function eye(n: number, m: number = n, dtype: DType = "f64"): Node {
  const rows = reshape(iota(size("eye", n)), [n, 1]);
  const cols = reshape(iota(size("eye", m)), [1, m]);
  return cast(eq(rows, cols), dtype);
}

import { ShapeError, DTypeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt } from "../ir/shape.ts";
import { cast, log, mul, sub } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";
import { gather, index, slice } from "./shape-ops.ts";

/**
 * Functions for model code that are compositions of existing ops: a new op would need a kernel,
 * a vjp rule and a GLSL rendering on every backend, while a composition has them already.
 *
 * Indexing here is 1-based, as in Stan and in the models' integer data (group ids are 1..G): the
 * first entry is at(x, 1). The functional index/slice/gather and every axis argument stay 0-based.
 * A 0 or negative position is an error rather than a wrap-around, so that a 0-based habit fails
 * loudly instead of reading the wrong entry.
 */

/** Base-10 logarithm, log(x)·log10(e) (within two ulps of log10; exact powers of ten may differ in the last bit). */
export function log10(x: Operand): Node {
  return mul(log(x), Math.LOG10E);
}

/** A 1-based position as a 0-based one, or a ShapeError that says which convention it expected. */
function zeroBased(fn: string, i: number, x: Node, axis: number): number {
  const d = x.shape[axis]!;
  if (!Number.isInteger(i)) throw new ShapeError(`${fn}: position ${i} is not an integer`);
  if (i === 0) throw new ShapeError(`${fn}: positions are 1-based, as in Stan (the first entry is 1), got 0 for axis ${axis} of ${fmt(x.shape)}`);
  if (i < 0 || i > d) throw new ShapeError(`${fn}: position ${i} is outside 1..${d} (1-based) for axis ${axis} of ${fmt(x.shape)}`);
  return i - 1;
}

/**
 * Stan's x[i, j, …], 1-based: each index applies to the next leading axis. A number picks one entry
 * and drops the axis; an integer tensor of 1-based positions gathers entries along it (Stan's
 * multi-index x[idx], its shape taking the axis' place). Positions in a tensor are read at run time
 * and are not range-checked here.
 */
export function at(x: Operand, ...indices: readonly (number | Node)[]): Node {
  let n = lift(x);
  if (indices.length === 0) throw new ShapeError("at: needs at least one index");
  if (indices.length > n.rank) throw new ShapeError(`at: ${indices.length} indices for ${fmt(n.shape)}`);
  let axis = 0;
  for (const i of indices) {
    if (typeof i === "number") {
      n = index(n, zeroBased("at", i, n, axis), axis);
    } else {
      if (i.dtype === "bool") throw new DTypeError("at: an index tensor must hold 1-based integer positions, got bool");
      n = gather(n, cast(sub(i, 1), "i32"), axis);
      axis += i.rank;
    }
  }
  return n;
}

/** Row i (1-based) of the matrices in the last two axes: Stan's row(x, i). */
export function row(x: Operand, i: number): Node {
  const n = lift(x);
  if (n.rank < 2) throw new ShapeError(`row: needs a matrix, got ${fmt(n.shape)}`);
  return index(n, zeroBased("row", i, n, n.rank - 2), n.rank - 2);
}

/** Column j (1-based) of the matrices in the last two axes: Stan's col(x, j). */
export function col(x: Operand, j: number): Node {
  const n = lift(x);
  if (n.rank < 2) throw new ShapeError(`col: needs a matrix, got ${fmt(n.shape)}`);
  return index(n, zeroBased("col", j, n, n.rank - 1), n.rank - 1);
}

/** Entries first..last of the leading axis, both included and 1-based: Stan's x[first:last] (last defaults to the end; first − 1 gives none). */
export function range(x: Operand, first: number, last?: number): Node {
  const n = lift(x);
  if (n.rank === 0) throw new ShapeError("range: needs at least one axis, got a scalar");
  const d = n.shape[0]!;
  // As in Stan, x[first:first-1] is empty (y[(T+1):T] when nothing is left); further back is a mistake.
  if (last === first - 1) {
    if (!Number.isInteger(first) || first < 1 || first > d + 1) throw new ShapeError(`range: an empty range starts at 1..${d + 1} (1-based), got ${first} for ${fmt(n.shape)}`);
    return slice(n, [{ start: first - 1, stop: first - 1 }]);
  }
  const start = zeroBased("range", first, n, 0);
  if (last !== undefined && last < first) throw new ShapeError(`range: last (${last}) is before first (${first}) for ${fmt(n.shape)}`);
  const end = last === undefined ? d : zeroBased("range", last, n, 0) + 1;
  return slice(n, [{ start, stop: end }]);
}

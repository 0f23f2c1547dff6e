import type { Node } from "../../ir/node.ts";

/**
 * Gathers and scatter-adds of vectors inside the loops around them. A hierarchical model reads
 * its group's value per row (gather(θ, g)) and adds its rows' gradient terms up per group
 * (scatter_add(r, g)); as op kernels of their own, each is a pass over the rows, and the values
 * in between are stored. Fused, the gather is a read of the table at the row's index in its
 * consumer's loop, and the scatter-add accumulates into its output in the loop over the rows that
 * its sibling reductions share (siblings.ts), so the loop that computes r moves in (sink.ts).
 *
 * Same bits: a gather copies; the scatter-add zeroes its output first and adds the rows in
 * increasing order, as the reference does. Each index is checked as the op kernels check it.
 */

/** A gather of a vector by a vector of indices, computed where its value is used. */
export function isFusedGather(n: Node): boolean {
  return n.op === "gather" && n.attrs.axis === 0 && n.inputs[0]!.rank === 1 && n.inputs[1]!.rank === 1;
}

/** A scatter-add of a vector into an f64 vector, accumulated in the loop over its updates. */
export function isFusedScatter(n: Node): boolean {
  return n.op === "scatter_add" && n.dtype === "f64" && n.attrs.axis === 0 && n.rank === 1 && n.inputs[0]!.rank === 1 && n.inputs[1]!.rank === 1;
}

/** The axes a reduction-like node (a reduction or a fused scatter-add) runs its inner loop over. */
export function reducedAxesOf(n: Node): readonly number[] {
  return isFusedScatter(n) ? [0] : n.attrs.axes!;
}

/** Whether `u` reads its input `x` at the index of the loop it runs in (its scope or, for reductions, its inner scope). */
export function readsInPlace(u: Node, x: Node): boolean {
  if (isFusedGather(u)) return x === u.inputs[1] && x !== u.inputs[0];
  return true;
}

/** The lines that check a gathered or scattered index `j` against the extent `d` (entry `q`), as the op kernels do. */
export function indexCheck(op: "gather" | "scatter_add", j: string, d: number, q: string): string {
  return `if (!(${j} >= 0 && ${j} < ${d})) F.indexError("${op}", ${j}, ${d}, ${q});`;
}

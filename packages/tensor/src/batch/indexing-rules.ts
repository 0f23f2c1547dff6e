import { add } from "../api/elementwise.ts";
import { constant } from "../api/leaves.ts";
import { gather, reshape, scatterAdd, transpose } from "../api/shape-ops.ts";
import type { Node } from "../ir/node.ts";
import { batched, withBatch, type BatchRule } from "./batched-value.ts";

/**
 * gather(x, indices, axis). A batched x with shared indices gathers along axis + 1; batched indices
 * into a shared x gather whole and move the batch axis to the front. When both are batched, each
 * chain must read its own slice of x: chain c's indices are offset by c·d into x flattened to
 * [C·d, ...], so one gather serves all chains.
 */
export const gatherRule: BatchRule = (node, [xv, iv], ctx) => {
  const axis = node.attrs.axis!;
  const x = xv!, idx = iv!;
  if (!idx.batched) return batched(gather(x.node, idx.node, axis + 1));
  if (!x.batched) return batched(moveToFront(gather(x.node, idx.node, axis), axis));
  const d = x.node.shape[axis + 1]!;
  const xs = x.node.shape; // [C, ...pre, d, ...post]
  const perm = [0, axis + 1, ...range(1, axis + 1), ...range(axis + 2, xs.length)];
  const flat = reshape(transpose(x.node, perm), [-1, ...xs.slice(1, axis + 1), ...xs.slice(axis + 2)]);
  const g = gather(flat, add(idx.node, chainOffsets(ctx.size, d, idx.node.rank)), 0); // [C, ...ind, ...pre, ...post]
  const q = idx.node.rank - 1;
  return batched(transpose(g, [0, ...range(q + 1, q + 1 + axis), ...range(1, q + 1), ...range(q + 1 + axis, g.rank)]));
};

/**
 * scatter_add(updates, indices, axis, size). Shared indices scatter along axis + 1. Batched indices
 * scatter each chain into its own block of a [C·size, ...] result (indices offset by c·size), which
 * is then reshaped and its axes moved back; the sums run in the same order as per chain.
 */
export const scatterAddRule: BatchRule = (node, [uv, iv], ctx) => {
  const axis = node.attrs.axis!;
  const size = node.shape[axis]!;
  const idx = iv!;
  if (!idx.batched) return batched(scatterAdd(uv!.node, idx.node, axis + 1, size));
  const u = withBatch(uv!, ctx.size); // [C, ...pre, ...ind, ...post]
  const k = idx.node.rank - 1;
  const perm = [0, ...range(1 + axis, 1 + axis + k), ...range(1, 1 + axis), ...range(1 + axis + k, u.rank)];
  const sums = scatterAdd(transpose(u, perm), add(idx.node, chainOffsets(ctx.size, size, idx.node.rank)), 0, ctx.size * size);
  const split = reshape(sums, [ctx.size, size, ...sums.shape.slice(1)]); // [C, size, ...pre, ...post]
  return batched(transpose(split, [0, ...range(2, 2 + axis), 1, ...range(2 + axis, split.rank)]));
};

// [C, 1, …, 1] i32 values c·stride, to add to batched indices of the given rank.
function chainOffsets(C: number, stride: number, rank: number): Node {
  return constant(range(0, C).map((c) => c * stride), [C, ...new Array<number>(rank - 1).fill(1)], "i32");
}

function moveToFront(x: Node, axis: number): Node {
  return transpose(x, [axis, ...range(0, axis), ...range(axis + 1, x.rank)]);
}

function range(from: number, to: number): number[] {
  return Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i);
}

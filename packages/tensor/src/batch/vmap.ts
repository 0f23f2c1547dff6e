import { broadcastTo } from "../api/shape-ops.ts";
import { GraphError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { toposort } from "../graph/toposort.ts";
import { batchGraph } from "./batch-graph.ts";
import { batchLeaf } from "./batch-rules.ts";

/** Which leaves get a batch axis: a map from param/data nodes to the batch size, or param names and the size. */
export type VmapSpec = ReadonlyMap<Node, number> | { readonly params: readonly string[]; readonly size: number };

/**
 * Turn a graph written for one chain into the graph for C chains at once. Each batched leaf is
 * replaced by a leaf of the same op and name with shape [C, ...shape] (bind it to the stacked
 * per-chain values); everything else, data above all, stays shared. Every output gets the leading
 * axis C: outputs that depend on no batched leaf are broadcast at the end. A named param the
 * graph never reads is ignored, since no output depends on it.
 */
export function vmap(outputs: readonly Node[], spec: VmapSpec): Node[] {
  const { size, leaves } = resolve(outputs, spec);
  const ctx = { size, batchGraph: (o: readonly Node[], l: ReadonlyMap<Node, Node>) => batchGraph(o, l, size) };
  const replaced = new Map<Node, Node>();
  for (const leaf of leaves) replaced.set(leaf, batchLeaf(leaf, [], ctx).node);
  return batchGraph(outputs, replaced, size).map((v) => (v.batched ? v.node : broadcastTo(v.node, [size, ...v.node.shape])));
}

function resolve(outputs: readonly Node[], spec: VmapSpec): { size: number; leaves: Node[] } {
  if (spec instanceof Map) {
    const sizes = [...new Set(spec.values())];
    if (sizes.length !== 1) throw new GraphError(`vmap: every batched leaf needs the same batch size, got [${sizes.join(", ")}]`);
    for (const l of spec.keys()) {
      if (l.op !== "param" && l.op !== "data") throw new GraphError(`vmap: only params and data can be batched, got a ${l.op} node`);
    }
    return { size: checkSize(sizes[0]!), leaves: [...spec.keys()] };
  }
  const { params, size } = spec as { params: readonly string[]; size: number };
  // A named param the outputs never read needs no leaf: the outputs are the same for every chain.
  const found = toposort(outputs).filter((n) => n.op === "param" && params.includes(n.attrs.name!));
  return { size: checkSize(size), leaves: found };
}

function checkSize(size: number): number {
  if (!Number.isInteger(size) || size < 1) throw new GraphError(`vmap: the batch size must be a positive integer, got ${size}`);
  return size;
}

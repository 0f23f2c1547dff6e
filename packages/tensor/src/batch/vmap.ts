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
 * axis C: outputs that depend on no batched leaf are broadcast at the end.
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
    const sizes = new Set(spec.values());
    if (sizes.size > 1) throw new GraphError(`vmap: every batched leaf needs the same batch size, got ${[...sizes].join(", ")}`);
    const leaves = [...spec.keys()];
    for (const l of leaves) {
      if (l.op !== "param" && l.op !== "data") throw new GraphError(`vmap: only params and data can be batched, got a ${l.op} node`);
    }
    return { size: [...sizes][0] ?? 1, leaves };
  }
  const { params, size } = spec as { params: readonly string[]; size: number };
  if (!Number.isInteger(size) || size < 1) throw new GraphError(`vmap: the batch size must be a positive integer, got ${size}`);
  const found = toposort(outputs).filter((n) => n.op === "param" && params.includes(n.attrs.name!));
  const missing = params.filter((p) => !found.some((n) => n.attrs.name === p));
  if (missing.length > 0) {
    throw new GraphError(`vmap: no param named ${missing.map((p) => `'${p}'`).join(", ")} in the graph; batch only params the outputs read`);
  }
  return { size, leaves: found };
}

import { GraphError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt, sameShape } from "../ir/shape.ts";
import { toposort } from "../graph/toposort.ts";
import { BATCH_RULES } from "./batch-rules.ts";
import type { BatchContext, BatchedValue } from "./batched-value.ts";

/**
 * The batched form of every output, where `leaves` maps leaves of the graph to their batched
 * replacements (shape [size, ...]). Nodes that depend on no batched leaf are kept as they are,
 * so shared data and everything computed from it alone stays one copy for all chains.
 */
export function batchGraph(outputs: readonly Node[], leaves: ReadonlyMap<Node, Node>, size: number): BatchedValue[] {
  const ctx: BatchContext = { size, batchGraph: (o, l) => batchGraph(o, l, size) };
  const memo = new Map<Node, BatchedValue>();
  for (const n of toposort(outputs)) {
    const leaf = leaves.get(n);
    if (leaf) {
      memo.set(n, { node: leaf, batched: true });
      continue;
    }
    const inputs = n.inputs.map((i) => memo.get(i)!);
    if (!inputs.some((v) => v.batched)) {
      memo.set(n, { node: n, batched: false });
      continue;
    }
    const v = BATCH_RULES[n.op](n, inputs, ctx);
    check(n, v, size);
    memo.set(n, v);
  }
  return outputs.map((o) => memo.get(o)!);
}

// A rule that gets a shape or dtype wrong would surface far away, in a backend; say so here instead.
function check(n: Node, v: BatchedValue, size: number): void {
  if (n.op === "scan") return;
  const want = v.batched ? [size, ...n.shape] : n.shape;
  if (!sameShape(v.node.shape, want) || v.node.dtype !== n.dtype) {
    throw new GraphError(`vmap: the rule for ${n.op} made ${v.node.dtype}${fmt(v.node.shape)}, expected ${n.dtype}${fmt(want)}`);
  }
}

import type { Node } from "../ir/node.ts";
import type { Op } from "../ir/ops.ts";
import { toposort } from "../graph/toposort.ts";

export { ALL_OPS } from "../ir/ops.ts";

/** The ops a graph uses, scan bodies included. */
export function opsOf(outputs: readonly Node[]): Set<Op> {
  const ops = new Set<Op>();
  const visit = (outs: readonly Node[]) => {
    for (const n of toposort(outs)) {
      ops.add(n.op);
      if (n.op === "scan") visit(n.attrs.body!.outputs);
    }
  };
  visit(outputs);
  return ops;
}

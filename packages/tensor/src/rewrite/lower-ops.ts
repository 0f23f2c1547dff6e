import { rebuild } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { Node } from "../ir/node.ts";
import { mapScanBodies } from "./scan-bodies.ts";

/** How one op is written in others: its replacement, from the node and its rewritten inputs. */
export type Lowering = (node: Node, inputs: Node[]) => Node;

/**
 * The graph with every node whose op has a lowering replaced by what the lowering builds (scan
 * bodies included), in one walk however many ops are lowered.
 */
export function lowerOps(outputs: readonly Node[], lowerings: Readonly<Record<string, Lowering>>): Node[] {
  if (!toposort(outputs).some((n) => Object.hasOwn(lowerings, n.op) || n.op === "scan")) return [...outputs];
  const inner = mapScanBodies(outputs, (body) => lowerOps(body, lowerings));
  return rebuild(inner, (n, inputs) => {
    if (Object.hasOwn(lowerings, n.op)) return lowerings[n.op]!(n, inputs);
    return inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
  });
}

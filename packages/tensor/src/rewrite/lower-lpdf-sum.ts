import { lpdfSumExpansion } from "../api/lpdf-sum.ts";
import { rebuild } from "../graph/substitute.ts";
import { toposort } from "../graph/toposort.ts";
import { Node } from "../ir/node.ts";
import { mapScanBodies } from "./scan-bodies.ts";

/**
 * The graph with every lpdf_sum replaced by its expansion in primitive ops (scan bodies included).
 * The compiled CPU backend and the GLSL renderer lower the node this way instead of giving it a
 * kernel: the expansion is a reduction of elementwise terms, which both already fuse with the loops
 * around it (on the CPU the value and its partials' sums become one loop over the data).
 */
export function lowerLpdfSums(outputs: readonly Node[]): Node[] {
  if (!toposort(outputs).some((n) => n.op === "lpdf_sum" || n.op === "scan")) return [...outputs];
  const inner = mapScanBodies(outputs, (body) => lowerLpdfSums(body));
  return rebuild(inner, (n, inputs) => {
    if (n.op === "lpdf_sum") return lpdfSumExpansion(n.attrs.family!, inputs);
    return inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
  });
}

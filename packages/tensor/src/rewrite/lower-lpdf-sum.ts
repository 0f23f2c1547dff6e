import { lpdfSumExpansion } from "../api/lpdf-sum.ts";
import type { Node } from "../ir/node.ts";
import { lowerOps, type Lowering } from "./lower-ops.ts";

/** lpdf_sum written as its expansion in primitive ops (lowerOps' table). */
export const LPDF_SUM_LOWERING: Readonly<Record<string, Lowering>> = {
  lpdf_sum: (n, inputs) => lpdfSumExpansion(n.attrs.family!, inputs),
};

/**
 * The graph with every lpdf_sum replaced by its expansion in primitive ops (scan bodies included).
 * The compiled CPU backend and the GLSL renderer lower the node this way instead of giving it a
 * kernel: the expansion is a reduction of elementwise terms, which both already fuse with the loops
 * around it (on the CPU the value and its partials' sums become one loop over the data).
 */
export function lowerLpdfSums(outputs: readonly Node[]): Node[] {
  return lowerOps(outputs, LPDF_SUM_LOWERING);
}

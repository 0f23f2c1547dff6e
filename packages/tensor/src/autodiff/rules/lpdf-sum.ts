import { lpdfSumPartials } from "../../api/lpdf-sum.ts";
import type { VjpRule } from "../rule.ts";

/** lpdf_sum: the family's analytic partials (api/lpdf-sum.ts), not the reverse pass through its expansion. */
export const lpdfSumRule: VjpRule = (node, ct, needed) => lpdfSumPartials(node.attrs.family!, node.inputs, ct, needed);

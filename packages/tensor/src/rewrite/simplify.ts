import type { Node } from "../ir/node.ts";
import type { Op } from "../ir/ops.ts";
import { rebuild } from "../graph/substitute.ts";
import { remake, type RewriteRule } from "./rule.ts";
import { SIMPLIFY_RULES } from "./simplify-rules.ts";

// A rule's result can match another rule at the same root (neg(neg(neg x))); a few rounds reach a fixed point.
const MAX_ROUNDS = 8;

/** Apply algebraic identities bottom-up, once over the graph (`optimize` repeats to a fixed point). */
export function simplify(outputs: readonly Node[], rules: readonly RewriteRule[] = SIMPLIFY_RULES): Node[] {
  const byOp = new Map<Op, RewriteRule[]>();
  for (const r of rules) for (const op of r.ops) byOp.set(op, [...(byOp.get(op) ?? []), r]);
  return rebuild(outputs, (node, inputs) => {
    let n = remake(node, inputs);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const next = applyFirst(n, byOp.get(n.op) ?? []);
      if (next === undefined || next === n) break;
      n = next;
    }
    return n;
  });
}

/** The result of the first rule in `rules` that rewrites `node`, or undefined. */
export function applyFirst(node: Node, rules: readonly RewriteRule[]): Node | undefined {
  for (const r of rules) {
    const out = r.apply(node);
    if (out !== undefined && out !== node) return out;
  }
  return undefined;
}

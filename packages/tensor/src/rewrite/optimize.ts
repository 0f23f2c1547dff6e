import type { Node } from "../ir/node.ts";
import { constantFold } from "./constant-fold.ts";
import { deadCode } from "./dead-code.ts";
import { mergeScans } from "./merge-scans.ts";
import { mapScanBodies } from "./scan-bodies.ts";
import { simplify } from "./simplify.ts";

// Each round only removes or replaces nodes, so this bounds a graph that keeps changing by mistake.
const MAX_ROUNDS = 32;

/** Constant folding, simplification, scans of one recurrence merged and dead-code removal (scan bodies included), repeated to a fixed point. CSE is free: nodes are interned. */
export function optimize(outputs: readonly Node[]): Node[] {
  let current = [...outputs];
  for (let round = 0; round < MAX_ROUNDS; round++) {
    let next = mapScanBodies(current, (body) => optimize(body));
    next = constantFold(next);
    next = simplify(next);
    next = mergeScans(next);
    next = deadCode(next);
    // Interning makes "nothing changed" an identity test.
    if (next.every((n, k) => n === current[k])) return next;
    current = next;
  }
  return current;
}

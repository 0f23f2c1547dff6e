import type { Node } from "../../ir/node.ts";
import { isElementwise, isReduce } from "../../ir/ops.ts";
import { sameShape } from "../../ir/shape.ts";
import { isFusedGather, isFusedScatter, readsInPlace } from "./fused-indexing.ts";
import type { Kernel, LoopKernel, Scope } from "./loop-nest.ts";

/**
 * Producers move into the loop that reads them. An elementwise loop stores its values only
 * because, when it was scheduled, their readers sat in different loops; once those readers share
 * one loop over the same shape (sibling reductions, see siblings.ts), the producer's nodes join
 * that loop as locals and its buffers and its own pass over memory go. A regression's residuals,
 * stored for four sums of the gradient, are then computed in the one pass that adds them up.
 *
 * Nothing is recomputed: the target scope has the producer's shape and visits each index once, so
 * every value (an lgamma as much as an add) is computed once, the same operations on the same
 * operands, and gives the same bits. The move is later in time, which is sound: the producer reads
 * only buffers written before it ran, and no buffer is written twice.
 */

/**
 * Moves each loop kernel made only of elementwise nodes, none of them an output, whose stored
 * values are all read directly in one scope of the same shape in a later kernel, into that scope.
 * Kernels are visited last first, so a chain of producers moves one after another.
 */
export function sinkProducers(
  kernels: Kernel[],
  scopes: Scope[],
  scopeOf: Map<Node, Scope>,
  innerOf: ReadonlyMap<Node, Scope>,
  written: Set<Node>,
  users: ReadonlyMap<Node, readonly Node[]>,
  isOutput: ReadonlySet<Node>,
  position: ReadonlyMap<Node, number>,
): void {
  for (let j = kernels.length - 1; j >= 0; j--) {
    const p = kernels[j]!;
    if (p.kind !== "loop") continue;
    const into = target(p, scopes, scopeOf, innerOf, written, users, isOutput);
    if (!into) continue;
    for (const n of p.main.nodes) {
      scopeOf.set(n, into);
      into.nodes.push(n);
      written.delete(n);
    }
    into.nodes.sort((a, b) => position.get(a)! - position.get(b)!);
    scopes.splice(scopes.indexOf(p.main), 1);
    kernels.splice(j, 1);
  }
}

// The scope `p` can move into, if any.
function target(
  p: LoopKernel,
  scopes: readonly Scope[],
  scopeOf: ReadonlyMap<Node, Scope>,
  innerOf: ReadonlyMap<Node, Scope>,
  written: ReadonlySet<Node>,
  users: ReadonlyMap<Node, readonly Node[]>,
  isOutput: ReadonlySet<Node>,
): Scope | undefined {
  if (p.scatter || scopes.some((s) => s.kernel === p && s !== p.main)) return undefined;
  const nodes = p.main.nodes;
  if (nodes.length === 0 || !nodes.every((n) => isElementwise(n.op) || isFusedGather(n))) return undefined;
  let into: Scope | undefined;
  for (const w of nodes) {
    if (!written.has(w)) continue;
    if (isOutput.has(w) || !sameShape(w.shape, p.main.shape)) return undefined;
    for (const u of users.get(w) ?? []) {
      // Where u reads w: a reduction reads its input in its inner loop, an elementwise node where it sits.
      const at = !readsInPlace(u, w) ? undefined : isReduce(u.op) || isFusedScatter(u) ? innerOf.get(u) : isElementwise(u.op) || isFusedGather(u) ? scopeOf.get(u) : undefined;
      if (at === p.main) continue; // a local of p, which moves with it
      if (!at || at.kernel === p || (into && at !== into)) return undefined;
      into = at;
    }
  }
  return into && sameShape(into.shape, p.main.shape) ? into : undefined;
}

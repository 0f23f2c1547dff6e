import type { Node } from "../../ir/node.ts";
import { sameShape } from "../../ir/shape.ts";
import { isView } from "../../ir/ops.ts";
import { isFusedScatter, reducedAxesOf } from "./fused-indexing.ts";
import type { Scope } from "./loop-nest.ts";

/**
 * Sibling reductions share one loop. Reductions computed in the same scope over the same extent
 * (the same input shape and the same reduced axes) run one inner loop with one accumulator each,
 * instead of one loop apiece: a gradient's Σ z², Σ z, Σ z·x over the data become one pass. Their
 * shared inner scope then holds every producer they read, so a producer that fed several of them
 * (and was stored for that) can move in too (see sink.ts).
 *
 * Each accumulator still adds its terms in the same order (the loop's row-major order over the
 * reduced axes), so every sum has the same bits as in a loop of its own. The shared loop runs where
 * the first sibling was computed: a later sibling moves earlier, which is sound because an inner
 * scope reads only its own locals and buffers written by earlier kernels; a sibling whose loop
 * reads anything else its kernel computes stays on its own.
 */

// Reductions that accumulate in one pass (logsumexp takes two: the maximum, then the sum of exps);
// fused scatter-adds (fused-indexing.ts) accumulate in one pass too.
const SHAREABLE = new Set<string>(["reduce_sum", "reduce_prod", "reduce_max", "reduce_min"]);

/**
 * Merges the inner scopes of sibling reductions in every scope: each group's later members get
 * the first member's inner scope (innerOf), and their scopes go from `scopes`. `position` is the
 * graph order, which every scope's nodes keep.
 */
export function shareSiblingLoops(scopes: Scope[], scopeOf: Map<Node, Scope>, innerOf: Map<Node, Scope>, position: ReadonlyMap<Node, number>): void {
  const gone = new Set<Scope>();
  // Outer scopes first: merging siblings' loops moves nodes into a scope one level down, which is
  // then visited with all of them (its own siblings among them).
  const depth = (s: Scope): number => (s.parent ? depth(s.parent) + 1 : 0);
  const outerFirst = [...scopes].map((s) => [s, depth(s)] as const).sort((a, b) => a[1] - b[1]).map(([s]) => s);
  for (const s of outerFirst) {
    if (gone.has(s)) continue;
    const firstOf = new Map<string, Node>();
    for (const r of s.nodes) {
      if (!(SHAREABLE.has(r.op) || isFusedScatter(r)) || innerOf.get(r)?.parent !== s) continue;
      const key = `${r.inputs[0]!.shape.join(",")}|${reducedAxesOf(r).join(",")}`;
      const first = firstOf.get(key);
      if (!first) {
        firstOf.set(key, r);
        continue;
      }
      const into = innerOf.get(first)!;
      const from = innerOf.get(r)!;
      if (!sameShape(into.shape, from.shape) || readsOwnKernel(from, scopes, scopeOf)) continue;
      for (const n of from.nodes) {
        scopeOf.set(n, into);
        into.nodes.push(n);
      }
      for (const c of scopes) if (c.parent === from) c.parent = into;
      innerOf.set(r, into);
      gone.add(from);
      into.nodes.sort((a, b) => position.get(a)! - position.get(b)!);
    }
  }
  if (gone.size > 0) scopes.splice(0, scopes.length, ...scopes.filter((s) => !gone.has(s)));
}

// Whether a node of `inner` or of a scope nested in it reads a value its kernel computes outside
// them (possible only after mergeLoops, through a reduction over axes of length 1): moved earlier,
// it could read that value before it is written.
function readsOwnKernel(inner: Scope, scopes: readonly Scope[], scopeOf: ReadonlyMap<Node, Scope>): boolean {
  const within = new Set<Scope>([inner]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of scopes) {
      if (c.parent && within.has(c.parent) && !within.has(c)) {
        within.add(c);
        grew = true;
      }
    }
  }
  const computed = (x: Node): Scope | undefined => {
    while (!scopeOf.has(x) && isView(x.op)) x = x.inputs[0]!;
    return scopeOf.get(x);
  };
  for (const c of within) {
    for (const n of c.nodes) {
      for (const x of n.inputs) {
        const at = computed(x);
        if (at && at.kernel === inner.kernel && !within.has(at)) return true;
      }
    }
  }
  return false;
}

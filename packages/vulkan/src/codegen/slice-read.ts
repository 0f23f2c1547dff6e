import type { Node } from "@ppl/tensor";
import { glslType } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import type { ScratchBuffer, SlicedValue } from "./kernel-plan.ts";
import type { Scope } from "./scope.ts";

/**
 * Statements in `scope` adding `node`'s partials at `idx`; the sum's variable. Every partial is
 * loaded before any is added (straight-line code: a loop's loads waited for one another, 49
 * partials in 3.4 µs on an H100), and they are added pairwise in a fixed tree.
 */
export function sliceSumRead(bind: (b: ScratchBuffer) => string, node: Node, v: SlicedValue, idx: readonly string[], scope: Scope, name: string): string {
  const at = `${name}_at`;
  scope.emit(`int ${at} = ${flatten(node.shape, idx)};`);
  const array = bind(v.scratch);
  const T = glslType(node.dtype);
  const parts = Array.from({ length: v.slices }, (_, q) => `${name}_${q}`);
  parts.forEach((p, q) => scope.emit(`${T} ${p} = ${array}[${q === 0 ? "" : `${q * node.size} + `}${at}];`));
  scope.emit(`${T} ${name} = ${pairwise(parts)};`);
  return name;
}

// The terms added as a balanced tree, halves first: (a + b) + (c + d).
function pairwise(terms: readonly string[]): string {
  if (terms.length === 1) return terms[0]!;
  const half = Math.ceil(terms.length / 2);
  return `(${pairwise(terms.slice(0, half))} + ${pairwise(terms.slice(half))})`;
}

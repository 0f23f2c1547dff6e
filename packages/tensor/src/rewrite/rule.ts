import { Node } from "../ir/node.ts";
import type { Op } from "../ir/ops.ts";

/** A named local rewrite: given a node whose inputs are already rewritten, an equal node, or undefined when it does not apply. */
export interface RewriteRule {
  /** A short kebab-case name, used in tests and when tracing rewrites. */
  readonly name: string;
  /** The ops the rule looks at (the root of its pattern). */
  readonly ops: readonly Op[];
  /** The replacement, of the same dtype and shape, or undefined. */
  apply(node: Node): Node | undefined;
}

/** The scalar of a constant that fills its shape with one value, else undefined. */
export function fillValue(n: Node): number | undefined {
  return n.op === "const" && typeof n.attrs.value === "number" ? n.attrs.value : undefined;
}

/** True for a constant filled with `v` (both zeros count as zero). */
export function isFillOf(n: Node, v: number): boolean {
  const f = fillValue(n);
  return f !== undefined && (f === v || Object.is(f, v));
}

/** The same op and attributes over new inputs (re-interned, so an unchanged node comes back as itself). */
export function remake(node: Node, inputs: readonly Node[]): Node {
  return inputs.every((x, k) => x === node.inputs[k]) ? node : Node.make(node.op, node.dtype, node.shape, inputs, node.attrs);
}

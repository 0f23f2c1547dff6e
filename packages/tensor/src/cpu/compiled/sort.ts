import type { Node } from "../../ir/node.ts";
import { sizeOf } from "../../ir/shape.ts";
import type { RenderContext } from "./context.ts";

/** argsort: every line sorted by the shared kernel (cpu/sort.ts), which the reference interpreter runs too. */
export function renderArgsort(n: Node, ctx: RenderContext): string[] {
  const axis = n.attrs.axis!;
  const x = ctx.contiguous(n.inputs[0]!), out = ctx.target(n);
  const outer = sizeOf(n.shape.slice(0, axis)), inner = sizeOf(n.shape.slice(axis + 1));
  return [`F.argsortLines(${x.name}, ${x.offset}, ${out.name}, ${out.offset}, ${outer}, ${n.shape[axis]!}, ${inner});`];
}

import { cast } from "../api/elementwise.ts";
import { constant } from "../api/leaves.ts";
import { substitute } from "../graph/substitute.ts";
import { floatOf, isFloat } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { fmt, sameShape } from "../ir/shape.ts";
import { vjp } from "./vjp.ts";

// Placeholders for the cotangents of the first vjp get names no model uses; a counter keeps the
// placeholders of nested or concurrent jvp calls apart (each is substituted away before returning).
let placeholderCount = 0;

/**
 * Forward mode as a graph transform: the tangents of `outputs` (J·v) when each of `wrt` moves along
 * its tangent in `tangents`.
 *
 * Built by the transpose trick rather than with a second set of per-op rules: for a placeholder
 * cotangent u, g(u) = vjpᵀ(u) = Jᵀu is linear in u, so its own vjp with cotangent v is (Jᵀ)ᵀv = J·v.
 * Every op that has a vjp rule (scan included) therefore gets forward mode for free, and the two
 * modes cannot disagree; the price is a larger graph before optimization, which constant folding and
 * hash-consing shrink back. The result does not depend on u (it is the derivative of a linear map),
 * but a rule may still mention u structurally; replacing u by zeros removes it exactly.
 */
export function jvp(outputs: readonly Node[], wrt: readonly Node[], tangents: readonly Node[]): Node[] {
  if (wrt.length !== tangents.length) throw new ShapeError(`jvp: ${wrt.length} inputs but ${tangents.length} tangents`);
  wrt.forEach((w, k) => {
    const t = tangents[k]!;
    if (!sameShape(w.shape, t.shape)) throw new ShapeError(`jvp: tangent ${k} has shape ${fmt(t.shape)}, its input ${fmt(w.shape)}; give one of the input's shape`);
  });
  const id = placeholderCount++;
  const us = outputs.map((o, k) => Node.make("param", floatOf(o.dtype), o.shape, [], { name: `__jvp${id}_u${k}` }));
  const diff = wrt.map((w) => isFloat(w.dtype));
  const floatWrt = wrt.filter((_, k) => diff[k]);
  const g = vjp(outputs, us.map((u, k) => (isFloat(outputs[k]!.dtype) ? u : null)), floatWrt);
  const v = tangents.filter((_, k) => diff[k]).map((t, k) => cast(t, g[k]!.dtype));
  const tangentsOut = vjp(g, v, us);
  const zeros = new Map(us.map((u) => [u, constant(0, u.shape, u.dtype)] as const));
  const clean = substitute(tangentsOut, zeros);
  // Integer and bool outputs do not move.
  return outputs.map((o, k) => (isFloat(o.dtype) ? cast(clean[k]!, o.dtype) : constant(0, o.shape, floatOf(o.dtype))));
}

/** The outputs and their tangents along `tangents`, for compiling together. */
export function valueAndJvp(outputs: readonly Node[], wrt: readonly Node[], tangents: readonly Node[]): { values: Node[]; tangents: Node[] } {
  return { values: [...outputs], tangents: jvp(outputs, wrt, tangents) };
}

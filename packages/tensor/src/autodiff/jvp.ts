import { cast } from "../api/elementwise.ts";
import { constant } from "../api/leaves.ts";
import { rebuild, substitute } from "../graph/substitute.ts";
import { optimize } from "../rewrite/optimize.ts";
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
 *
 * Zero tangents are symbolic, as in JAX: a term multiplied by a zero tangent is dropped even where
 * its primal factor is not finite, so basis tangents (one-hot vectors) give the plain partials.
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
  const clean = pruneZeroTangents(optimize(substitute(tangentsOut, zeros)));
  // Integer and bool outputs do not move.
  return outputs.map((o, k) => (isFloat(o.dtype) ? cast(clean[k]!, o.dtype) : constant(0, o.shape, floatOf(o.dtype))));
}

/** The outputs and their tangents along `tangents`, for compiling together. */
export function valueAndJvp(outputs: readonly Node[], wrt: readonly Node[], tangents: readonly Node[]): { values: Node[]; tangents: Node[] } {
  return { values: [...outputs], tangents: jvp(outputs, wrt, tangents) };
}

const ZERO_IF_ANY = new Set<string>(["mul", "matmul"]);
const ZERO_IF_FIRST = new Set<string>([
  "div", "neg", "reshape", "broadcast_to", "transpose", "slice", "reduce_sum", "cumsum", "stop_gradient", "cast", "gather", "scatter_add",
]);

// Tangent terms with a zero factor are removed (symbolic zeros), then the graph is folded again.
function pruneZeroTangents(outputs: readonly Node[]): Node[] {
  const isZero = (n: Node) => n.op === "const" && n.attrs.value === 0;
  const pruned = rebuild(outputs, (n, inputs) => {
    const zero = () => constant(0, n.shape, n.dtype);
    const same = (x: Node) => sameShape(x.shape, n.shape) && x.dtype === n.dtype;
    if (ZERO_IF_ANY.has(n.op) && inputs.some(isZero)) return zero();
    if (ZERO_IF_FIRST.has(n.op) && isZero(inputs[0]!)) return zero();
    if ((n.op === "concat" || (n.op === "pad" && n.attrs.padValue === 0)) && inputs.every(isZero)) return zero();
    if (n.op === "select" && isZero(inputs[1]!) && isZero(inputs[2]!)) return zero();
    if (n.op === "add" || n.op === "sub") {
      const [a, b] = inputs as [Node, Node];
      if (isZero(a) && isZero(b)) return zero();
      if (isZero(b) && same(a)) return a;
      if (isZero(a) && same(b) && n.op === "add") return b;
    }
    return inputs.every((x, k) => x === n.inputs[k]) ? n : Node.make(n.op, n.dtype, n.shape, inputs, n.attrs);
  });
  return optimize(pruned);
}

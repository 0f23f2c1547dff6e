import { add, cast } from "../api/elementwise.ts";
import { constant } from "../api/leaves.ts";
import { toposort } from "../graph/toposort.ts";
import { floatOf, isFloat } from "../ir/dtype.ts";
import { DTypeError, GraphError, ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt, sameShape } from "../ir/shape.ts";
import { RULES, TUPLE_RULES } from "./rules/index.ts";

/**
 * Reverse-mode differentiation as a graph transform: the cotangents of `wrt` given cotangents of
 * `outputs` (null: that output contributes nothing). Walks the graph once in reverse topological
 * order, sums the cotangents reaching each node, and applies the op's vjp rule. The result is an
 * ordinary graph (it can be differentiated again, optimized, compiled). A `wrt` node that the
 * outputs do not depend on gets zeros of its shape; integer and bool nodes never get cotangents.
 */
export function vjp(outputs: readonly Node[], cotangents: readonly (Node | null)[], wrt: readonly Node[]): Node[] {
  if (outputs.length !== cotangents.length) {
    throw new ShapeError(`vjp: ${outputs.length} outputs but ${cotangents.length} cotangents`);
  }
  const order = toposort(outputs);
  const wrtSet = new Set(wrt);
  // Nodes on a path from some wrt node to an output: only they need cotangents.
  const onPath = new Set<Node>();
  for (const n of order) if (wrtSet.has(n) || n.inputs.some((i) => onPath.has(i))) onPath.add(n);
  const receives = (n: Node) => onPath.has(n) && isFloat(n.dtype) && n.op !== "scan";

  const parts = new Map<Node, Node[]>();
  const tupleParts = new Map<Node, (Node | null)[]>();
  const found = new Map<Node, Node>();
  const contribute = (n: Node, ct: Node, from: string) => {
    if (!sameShape(ct.shape, n.shape) || ct.dtype !== n.dtype) {
      throw new GraphError(`vjp: the ${from} rule gave a ${ct.dtype}${fmt(ct.shape)} cotangent for ${n}`);
    }
    const list = parts.get(n);
    if (list) list.push(ct);
    else parts.set(n, [ct]);
  };

  outputs.forEach((o, k) => {
    const ct = cotangents[k];
    if (!ct) return;
    if (!sameShape(ct.shape, o.shape)) throw new ShapeError(`vjp: cotangent ${k} has shape ${fmt(ct.shape)}, its output ${fmt(o.shape)}`);
    if (receives(o)) contribute(o, cast(ct, o.dtype), "caller");
  });

  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    let inputCts: (Node | null)[];
    if (n.op === "scan") {
      const slots = tupleParts.get(n);
      if (!slots) continue;
      inputCts = TUPLE_RULES.scan(n, slots, n.inputs.map(receives), vjp);
    } else {
      const list = parts.get(n);
      if (!list) continue;
      const ct = sumAll(list);
      if (wrtSet.has(n)) found.set(n, ct);
      if (n.op === "tuple_get") {
        routeToTuple(tupleParts, n, ct);
        continue;
      }
      if (!n.inputs.some(receives)) continue;
      inputCts = RULES[n.op as Exclude<Node["op"], "scan">](n, ct, n.inputs.map(receives));
    }
    n.inputs.forEach((x, k) => {
      const c = inputCts[k];
      if (c && receives(x)) contribute(x, c, n.op);
    });
  }
  return wrt.map((w) => found.get(w) ?? constant(0, w.shape, floatOf(w.dtype)));
}

/** Gradients of a scalar (or single-element) output with respect to each of `wrt`. */
export function grad(output: Node, wrt: readonly Node[]): Node[] {
  if (output.size !== 1) throw new ShapeError(`grad: the output must be a scalar, got ${fmt(output.shape)}; use vjp with a cotangent`);
  if (!isFloat(output.dtype)) throw new DTypeError(`grad: the output must be a float, got ${output.dtype}`);
  return vjp([output], [constant(1, output.shape, output.dtype)], wrt);
}

/** The output itself and its gradients with respect to each of `wrt`, for compiling together. */
export function valueAndGrad(output: Node, wrt: readonly Node[]): { value: Node; grads: Node[] } {
  return { value: output, grads: grad(output, wrt) };
}

// A tuple_get's cotangent fills its slot of the scan's output cotangents.
function routeToTuple(tupleParts: Map<Node, (Node | null)[]>, n: Node, ct: Node): void {
  const tuple = n.inputs[0]!;
  let slots = tupleParts.get(tuple);
  if (!slots) {
    slots = tuple.attrs.outputs!.map(() => null);
    tupleParts.set(tuple, slots);
  }
  const k = n.attrs.index!;
  slots[k] = slots[k] ? add(slots[k]!, ct) : ct;
}

// Pairwise sum, so a node with many users gives a shallow tree of adds rather than a long chain.
function sumAll(nodes: readonly Node[]): Node {
  if (nodes.length === 1) return nodes[0]!;
  const mid = nodes.length >> 1;
  return add(sumAll(nodes.slice(0, mid)), sumAll(nodes.slice(mid)));
}

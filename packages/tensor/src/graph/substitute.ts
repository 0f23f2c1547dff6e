import { Node } from "../ir/node.ts";
import { toposort } from "./toposort.ts";

/** Rebuild `outputs` with some nodes replaced; everything downstream is re-made (and re-interned). */
export function substitute(outputs: readonly Node[], replace: ReadonlyMap<Node, Node>): Node[] {
  const memo = new Map<Node, Node>(replace);
  for (const n of toposort(outputs)) {
    if (memo.has(n)) continue;
    const inputs = n.inputs.map((i) => memo.get(i) ?? i);
    const changed = inputs.some((x, k) => x !== n.inputs[k]);
    memo.set(n, changed ? Node.make(n.op, n.dtype, n.shape, inputs, n.attrs) : n);
  }
  return outputs.map((o) => memo.get(o)!);
}

/** Rebuild every node of a graph through `rule`, inputs first; `rule` gets the node and its rebuilt inputs. */
export function rebuild(outputs: readonly Node[], rule: (node: Node, inputs: Node[]) => Node): Node[] {
  const memo = new Map<Node, Node>();
  for (const n of toposort(outputs)) memo.set(n, rule(n, n.inputs.map((i) => memo.get(i)!)));
  return outputs.map((o) => memo.get(o)!);
}

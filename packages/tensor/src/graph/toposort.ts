import type { Node } from "../ir/node.ts";

/** All nodes reachable from `outputs`, inputs before users (scan bodies are not entered). */
export function toposort(outputs: readonly Node[]): Node[] {
  const order: Node[] = [];
  const seen = new Set<Node>();
  // Iterative DFS: model graphs (long scans unrolled by users, big sums) can be deep.
  const stack: [Node, number][] = [];
  for (const root of outputs) {
    if (seen.has(root)) continue;
    seen.add(root);
    stack.push([root, 0]);
    while (stack.length > 0) {
      const top = stack[stack.length - 1]!;
      const [node, i] = top;
      if (i < node.inputs.length) {
        top[1] = i + 1;
        const child = node.inputs[i]!;
        if (!seen.has(child)) {
          seen.add(child);
          stack.push([child, 0]);
        }
      } else {
        stack.pop();
        order.push(node);
      }
    }
  }
  return order;
}

/** Number of users of each node within the graph of `outputs`. */
export function userCounts(outputs: readonly Node[]): Map<Node, number> {
  const counts = new Map<Node, number>();
  for (const n of toposort(outputs)) {
    if (!counts.has(n)) counts.set(n, 0);
    for (const i of n.inputs) counts.set(i, (counts.get(i) ?? 0) + 1);
  }
  return counts;
}

/** The leaves of a graph by op: its params, data and args. */
export function leaves(outputs: readonly Node[]): Node[] {
  return toposort(outputs).filter((n) => n.op === "param" || n.op === "data" || n.op === "arg");
}

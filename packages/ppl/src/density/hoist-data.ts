import { data as dataLeaf, type Backend, type Bindings, type Node, type TensorValue } from "@ppl/tensor";
import { substitute, toposort } from "@ppl/tensor/internals";

/** A graph with its data-only parts evaluated once, and the values of the leaves that replace them. */
export interface HoistedGraph {
  readonly outputs: Node[];
  /** Values of the new data leaves, by name (the leaves are named `_hoisted<k>`, a name no model field can take). */
  readonly bindings: Record<string, TensorValue>;
}

/**
 * Replaces every largest subgraph that reads only data and constants (never a parameter) by a
 * data leaf holding its value, computed once on `backend`. The log density is evaluated hundreds
 * of thousands of times with the same data, so work such as centring a design matrix must not be
 * redone per gradient. A subgraph whose value is larger than the data it reads (a broadcast) is
 * not materialized: its fused loops are cheaper than reading it back from memory.
 */
export function hoistData(outputs: readonly Node[], dataBindings: Bindings, backend: Backend): HoistedGraph {
  const order = toposort(outputs);
  const readsParams = new Set<Node>();
  const leafSize = new Map<Node, number>();
  for (const n of order) {
    if (n.op === "param" || n.op === "arg" || n.inputs.some((i) => readsParams.has(i))) readsParams.add(n);
  }
  // Total size of the distinct data leaves and array constants under each data-only node.
  const leavesUnder = new Map<Node, Set<Node>>();
  for (const n of order) {
    if (readsParams.has(n)) continue;
    const set = new Set<Node>();
    if (n.op === "data" || (n.op === "const" && n.attrs.value instanceof Float64Array)) set.add(n);
    for (const i of n.inputs) for (const l of leavesUnder.get(i) ?? []) set.add(l);
    leavesUnder.set(n, set);
    let size = 0;
    for (const l of set) size += l.size;
    leafSize.set(n, size);
  }
  const isLeaf = (n: Node): boolean => n.op === "data" || n.op === "const";
  const candidates: Node[] = [];
  for (const n of order) {
    if (!readsParams.has(n)) continue;
    for (const i of n.inputs) if (!readsParams.has(i)) candidates.push(i);
  }
  for (const o of outputs) if (!readsParams.has(o)) candidates.push(o);

  const hoisted = new Set<Node>();
  const seen = new Set<Node>();
  while (candidates.length > 0) {
    const n = candidates.pop()!;
    if (seen.has(n) || isLeaf(n)) continue;
    seen.add(n);
    // Scan results are tuples; their tuple_get users are the values to hoist.
    if (n.op !== "scan" && n.size <= leafSize.get(n)!) hoisted.add(n);
    else candidates.push(...n.inputs);
  }
  if (hoisted.size === 0) return { outputs: [...outputs], bindings: {} };

  const list = [...hoisted];
  const values = backend.compileSync!(list).runSync!(dataBindings);
  const bindings: Record<string, TensorValue> = {};
  const replace = new Map<Node, Node>();
  list.forEach((n, k) => {
    const name = `_hoisted${k}`;
    replace.set(n, dataLeaf(name, n.shape, n.dtype));
    bindings[name] = values[k]!;
  });
  return { outputs: substitute(outputs, replace), bindings };
}

import { data as dataLeaf, type Backend, type Bindings, type Node, type TensorValue } from "@ppl/tensor";
import { isCheap, isElementwise, isReduce, substitute, toposort } from "@ppl/tensor/ir";

// The most cheap ops a loop recomputes in place of reading one stored data-only value.
const RECOMPUTE_OPS = 4;

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
 * not materialized: its fused loops are cheaper than reading it back from memory. Nor is a short
 * chain of cheap ops (isCheap: comparisons, selects, products; at most RECOMPUTE_OPS of them) read
 * only by elementwise ops and reductions: the loop that reads it computes it from the data it
 * already reads, where a stored copy would be one more array to read at every evaluation (a
 * Poisson's y ≥ 0 and y·[y ≥ 0] next to y itself). The same ops on the same values: the same bits.
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
  const users = new Map<Node, Node[]>();
  for (const n of order) for (const i of n.inputs) (users.get(i) ?? users.set(i, []).get(i)!).push(n);
  // The cheap ops recomputing n takes, n included (an input that is not cheap is stored itself, or
  // not materialized, as before); Infinity where n is not cheap, is an output (computed once, not at
  // every evaluation), or something other than a fused loop reads it.
  const isOutput = new Set(outputs);
  const opsOf = new Map<Node, number>();
  const recomputeOps = (n: Node): number => {
    if (isLeaf(n)) return 0;
    let ops = opsOf.get(n);
    if (ops !== undefined) return ops;
    ops = Infinity;
    if (isCheap(n.op) && !isOutput.has(n) && (users.get(n) ?? []).every((u) => isElementwise(u.op) || isReduce(u.op))) {
      ops = 1;
      for (const i of n.inputs) {
        const k = recomputeOps(i);
        if (k !== Infinity) ops += k;
      }
    }
    opsOf.set(n, ops);
    return ops;
  };
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
    if (n.op !== "scan" && n.size <= leafSize.get(n)! && recomputeOps(n) > RECOMPUTE_OPS) hoisted.add(n);
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

import { isElementwise, isReduce } from "../ir/ops.ts";
import type { Node } from "../ir/node.ts";
import { toposort } from "./toposort.ts";

/**
 * Data leaves whose rows (axis 0) may be put in any order, one order for all of them, without
 * changing the outputs: `index` is the leaf a gather or scatter_add takes its indices from, and
 * sorting the rows by it puts each target's entries next to each other.
 */
export interface PermutableRows {
  /** The row count: axis 0 of every leaf in `leaves`. */
  readonly rows: number;
  /** The data leaf of the indices ([rows]): sort the rows by its values. */
  readonly index: Node;
  /** Every data leaf whose axis 0 is the rows (`index` among them): permute all of them alike. */
  readonly leaves: readonly Node[];
}

/**
 * The data leaves whose rows the outputs do not depend on the order of, when a gather or a
 * scatter_add indexes by one of them; undefined otherwise. Reordering such rows changes only the
 * order of additions: the outputs are equal up to rounding.
 *
 * Why: a hierarchical model gathers group effects by a group index that is data, in whatever order
 * the user's rows came. With the rows sorted by group, a GPU's gathers read one group's effect for
 * many neighbouring rows, and the scatter of the gradient reads each group's rows as one run,
 * instead of a random access per row.
 *
 * The rows are traced from the leaves with axis 0 of the index's length, through every node: an
 * elementwise op keeps them on one axis (an operand without them must broadcast along it), a
 * reduction, a contraction or a scatter over them sums them away, and gathers, matmuls, transposes,
 * broadcasts and reshapes that keep the axis whole move it. Anything else that touches the rows
 * (a slice, a cumulative sum, a scan, a sort, an output that keeps them) means their order
 * matters, and there is no permutation.
 */
export function permutableRows(outputs: readonly Node[]): PermutableRows | undefined {
  const order = toposort(outputs);
  // A gather and the scatter of its gradient share their index: each index leaf is traced once.
  const tried = new Set<Node>();
  for (const n of order) {
    if (n.op !== "scatter_add" && n.op !== "gather") continue;
    const index = indexLeaf(n.inputs[1]!);
    if (!index || index.rank !== 1 || index.shape[0]! < 2 || tried.has(index)) continue;
    tried.add(index);
    const rows = index.shape[0]!;
    const leaves = order.filter((l) => l.op === "data" && l.rank >= 1 && l.shape[0] === rows);
    if (rowsAreFree(order, new Set(leaves), outputs)) return { rows, index, leaves };
  }
  return undefined;
}

/** The one data leaf an index is an elementwise function of (casts, offsets), or undefined. */
function indexLeaf(ind: Node): Node | undefined {
  let leaf: Node | undefined;
  const seen = new Set<Node>();
  const visit = (n: Node): boolean => {
    if (seen.has(n)) return true;
    seen.add(n);
    if (n.op === "data") {
      if (leaf && leaf !== n) return false;
      leaf = n;
      return true;
    }
    if (n.op === "const") return true;
    return (isElementwise(n.op) || n.op === "broadcast_to" || n.op === "reshape") && n.inputs.every(visit);
  };
  return visit(ind) ? leaf : undefined;
}

/** Whether every node carries the rows on at most one whole axis and no output carries them. */
function rowsAreFree(order: readonly Node[], leaves: ReadonlySet<Node>, outputs: readonly Node[]): boolean {
  const rows = [...leaves][0]!.shape[0]!;
  const axis = new Map<Node, number | null>();
  const flat = new Map<Node, ReadonlySet<number>>();
  const of = (x: Node) => axis.get(x) ?? null;
  for (const n of order) {
    const a = rowAxis(n, leaves, rows, of, (x) => flat.get(x)!);
    if (a === undefined) return false;
    axis.set(n, a);
    if (a === null) flat.set(n, flatAxes(n, (x) => flat.get(x)!));
  }
  return outputs.every((o) => axis.get(o) === null);
}

/**
 * The axes along which a node that does not carry the rows holds one value (size-1 axes always):
 * an operand broadcast along the rows must be such an axis there, or it would not move with them.
 */
function flatAxes(n: Node, flatOf: (x: Node) => ReadonlySet<number>): ReadonlySet<number> {
  const out = new Set<number>();
  n.shape.forEach((d, k) => d === 1 && out.add(k));
  if (n.op === "const" && typeof n.attrs.value === "number") n.shape.forEach((_, k) => out.add(k));
  else if (isElementwise(n.op) || n.op === "broadcast_to") {
    for (let k = 0; k < n.rank; k++) {
      // Flat along k when every operand is: missing there, of size 1, or flat itself.
      if (n.inputs.every((x) => {
        const kx = k - (n.rank - x.rank);
        return kx < 0 || x.shape[kx] === 1 || flatOf(x).has(kx);
      })) out.add(k);
    }
  } else if (n.op === "transpose") {
    const f = flatOf(n.inputs[0]!);
    n.attrs.perm!.forEach((p, k) => f.has(p) && out.add(k));
  }
  return out;
}

/**
 * The axis of n that runs over the rows: a number, null when n does not depend on their order, or
 * undefined when it depends on it in a way a permutation would change.
 */
function rowAxis(
  n: Node, leaves: ReadonlySet<Node>, rows: number, of: (x: Node) => number | null, flatOf: (x: Node) => ReadonlySet<number>,
): number | null | undefined {
  if (n.op === "data") return leaves.has(n) ? 0 : null;
  if (n.inputs.every((x) => of(x) === null)) return null;
  if (isElementwise(n.op) || n.op === "lpdf_sum") {
    const out = broadcastRowAxis(n.inputs, n.op === "lpdf_sum" ? broadcastRank(n.inputs) : n.rank, of, flatOf);
    if (out === undefined) return undefined;
    return n.op === "lpdf_sum" ? null : out;
  }
  if (isReduce(n.op)) {
    const a = of(n.inputs[0]!)!;
    const axes = n.attrs.axes!;
    return axes.includes(a) ? null : a - axes.filter((x) => x < a).length;
  }
  switch (n.op) {
    case "broadcast_to":
      return broadcastRowAxis(n.inputs, n.rank, of, flatOf);
    case "transpose": {
      const a = of(n.inputs[0]!)!;
      return n.attrs.perm!.indexOf(a);
    }
    case "reshape": {
      // The rows stay an axis when the dimensions before them multiply to the same count.
      const x = n.inputs[0]!;
      const a = of(x)!;
      const before = x.shape.slice(0, a).reduce((p, d) => p * d, 1);
      let p = 1;
      for (let k = 0; k < n.rank; k++) {
        if (p === before && n.shape[k] === rows) return k;
        p *= n.shape[k]!;
      }
      return undefined;
    }
    case "gather": {
      const [table, ind] = n.inputs as [Node, Node];
      const ax = n.attrs.axis!;
      const [ta, ia] = [of(table), of(ind)];
      if (ta !== null && ia !== null) return undefined;
      if (ia !== null) return ax + ia;
      if (ta === ax) return undefined; // rows picked by an index: their order matters
      return ta! < ax ? ta : ta! - 1 + ind.rank;
    }
    case "scatter_add": {
      const [upd, ind] = n.inputs as [Node, Node];
      const ax = n.attrs.axis!;
      const [ua, ia] = [of(upd), of(ind)];
      if (ia !== null) return ua === ax + ia ? null : undefined; // the rows summed into their targets
      if (ua! >= ax && ua! < ax + ind.rank) return undefined;
      return ua! < ax ? ua : ua! - ind.rank + 1;
    }
    case "matmul": {
      const [x, y] = n.inputs as [Node, Node];
      const [xa, ya] = [of(x), of(y)];
      const [xn, xk, yk, ym] = [x.rank - 2, x.rank - 1, y.rank - 2, y.rank - 1];
      if (xa === xk || ya === yk) return xa === xk && ya === yk ? null : undefined; // contracted over the rows: a sum
      if (xa !== null && ya !== null) return undefined;
      if (xa === xn) return n.rank - 2;
      if (ya === ym) return n.rank - 1;
      return undefined; // rows on a batch axis
    }
    default:
      return undefined;
  }
}

/** The rank of the broadcast of some operands. */
function broadcastRank(inputs: readonly Node[]): number {
  return Math.max(0, ...inputs.map((x) => x.rank));
}

/**
 * The output axis of the rows of operands broadcast (right-aligned) to rank r: every operand with
 * rows has them there, and every operand without them has size 1 there (or no axis), else undefined.
 */
function broadcastRowAxis(
  inputs: readonly Node[], r: number, of: (x: Node) => number | null, flatOf: (x: Node) => ReadonlySet<number>,
): number | null | undefined {
  let out: number | null = null;
  for (const x of inputs) {
    const a = of(x);
    if (a === null) continue;
    const k = a + r - x.rank;
    if (out !== null && out !== k) return undefined;
    out = k;
  }
  if (out === null) return null;
  for (const x of inputs) {
    if (of(x) !== null) continue;
    const k = out - (r - x.rank);
    if (k >= 0 && !flatOf(x).has(k)) return undefined;
  }
  return out;
}

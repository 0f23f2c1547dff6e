import type { Node } from "../../ir/node.ts";
import { isCheap, isElementwise, isReduce, isView } from "../../ir/ops.ts";
import { sizeOf } from "../../ir/shape.ts";
import { toposort } from "../../graph/toposort.ts";
import { isFusedGather, isFusedScatter, readsInPlace } from "./fused-indexing.ts";
import { isContiguous, isUnitReshape, layoutOf } from "./layout.ts";
import type { Kernel, LoopKernel, Schedule, Scope } from "./loop-nest.ts";
import { shareSiblingLoops } from "./siblings.ts";
import { sinkProducers } from "./sink.ts";

/**
 * The scheduler: groups the nodes of a graph into loop nests ("kernels").
 *
 * A loop kernel iterates over one shape (its main scope). Elementwise nodes join the scope of
 * their users when every user sits in that same scope and the node has the scope's size, so a
 * chain of any length over any number of broadcast inputs is one loop with its intermediates in
 * local variables. A reduction sits in its consumer's scope and owns an inner scope (the loop
 * over its reduced axes) where its producers are computed inline. Anything else — matmul,
 * gather, linear algebra, scan, concat, pad — is an op kernel with its own hand-written loops.
 * Views cost nothing: they re-index a buffer (see layout.ts). Then loops over the same shape merge
 * into one where nothing in between stands in the way (mergeLoops): a gradient's passes over the
 * data join the value's. Last, sibling reductions over the same extent share one inner loop
 * (siblings.ts), and elementwise loops whose stored values only that loop reads move into it
 * (sink.ts): the sums of a gradient over a data vector become one pass with no stored residuals.
 */

/** Leaves: inputs bound at run time and constants. */
export const isLeaf = (n: Node): boolean => n.op === "param" || n.op === "data" || n.op === "arg" || n.op === "const";
// A pad of a vector reads its input at a shifted index: it joins a loop over its own shape (its
// input stays in a buffer), where the padded gradient of a parameter slice is added up.
const isFusedPad = (n: Node): boolean => n.op === "pad" && n.rank === 1;
const isFusible = (n: Node): boolean => isElementwise(n.op) || isReduce(n.op) || isFusedPad(n) || isFusedGather(n);
// Nodes that own an inner loop: reductions, and scatter-adds accumulated in a loop over their updates.
const ownsLoop = (n: Node): boolean => isReduce(n.op) || isFusedScatter(n);

/** True when a reduction's kept axes all come before its reduced axes (ignoring axes of length 1). */
export function reducesTrailing(r: Node): boolean {
  const shape = r.inputs[0]!.shape;
  const axes = r.attrs.axes!;
  let lastKept = -1, firstReduced = shape.length;
  shape.forEach((d, i) => {
    if (d <= 1) return;
    if (axes.includes(i)) firstReduced = Math.min(firstReduced, i);
    else lastKept = i;
  });
  return lastKept < firstReduced;
}

// A node joins its users' scope when it has the scope's size. A smaller node (it broadcasts into the
// loop) joins only when cheap (isCheap, about the cost of a load): a transcendental of a [D] vector
// in an [N, D] loop would be computed N times over, so it gets a loop of its own instead
// (loop-invariant hoisting).
function fitsScope(n: Node, s: Scope, isOutput: boolean): boolean {
  if (isReduce(n.op) && !reducesTrailing(n)) return false;
  if (isFusedPad(n)) return s.shape.length === 1 && s.shape[0] === n.shape[0];
  if (sizeOf(n.shape) === sizeOf(s.shape)) return true;
  return isCheap(n.op) && !isOutput;
}

/** Group the graph of `outputs` into kernels. */
export function schedule(outputs: readonly Node[]): Schedule {
  const order = toposort(outputs);
  const position = new Map(order.map((n, i) => [n, i] as const));
  const users = new Map<Node, Node[]>();
  for (const n of order) for (const x of n.inputs) (users.get(x) ?? users.set(x, []).get(x)!).push(n);
  const isOutput = new Set(outputs);
  const scopeOf = new Map<Node, Scope>();
  const innerOf = new Map<Node, Scope>();
  const written = new Set<Node>();
  const kernels: Kernel[] = [];
  const scopes: Scope[] = [];

  const newScope = (shape: readonly number[], kernel: LoopKernel, parent?: Scope): Scope => {
    const s: Scope = { shape, parent, kernel, nodes: [] };
    scopes.push(s);
    return s;
  };
  const newLoop = (root: Node, shape: readonly number[], scatter?: Node): LoopKernel => {
    const k: LoopKernel = { kind: "loop", root, main: undefined as unknown as Scope, scatter };
    k.main = newScope(shape, k);
    kernels.push(k);
    return k;
  };
  const place = (n: Node, s: Scope) => {
    scopeOf.set(n, s);
    s.nodes.push(n);
    if (ownsLoop(n)) innerOf.set(n, newScope(n.inputs[0]!.shape, s.kernel, s));
  };
  // The one scope every user computes `n` in, or undefined when some user needs it in a buffer.
  const commonScope = (n: Node): Scope | undefined => {
    let found: Scope | undefined;
    for (const u of users.get(n) ?? []) {
      const s = !readsInPlace(u, n) ? undefined : ownsLoop(u) ? innerOf.get(u) : isFusible(u) && !isFusedPad(u) ? scopeOf.get(u) : undefined;
      if (!s || (found && s !== found)) return undefined;
      found = s;
    }
    return found;
  };

  for (let i = order.length - 1; i >= 0; i--) {
    const n = order[i]!;
    if (n.op === "scan") {
      kernels.push({ kind: "op", root: n });
    } else if (n.op === "tuple_get") {
      written.add(n); // the scan kernel writes it
    } else if (isLeaf(n) || isView(n.op)) {
      // An output must be a fresh contiguous array: copy it.
      if (isOutput.has(n)) {
        place(n, newLoop(n, n.shape).main);
        written.add(n);
      }
    } else if (isFusedScatter(n)) {
      // A loop of its own over no axes, whose inner loop runs over the updates: it joins the
      // density's sums over the same rows (mergeLoops, siblings.ts).
      place(n, newLoop(n, []).main);
      written.add(n);
    } else if (!isFusible(n)) {
      kernels.push({ kind: "op", root: n });
      written.add(n);
    } else {
      const s = commonScope(n);
      if (s && fitsScope(n, s, isOutput.has(n))) {
        place(n, s);
        if (isOutput.has(n)) written.add(n);
        continue;
      }
      written.add(n);
      if (isReduce(n.op) && !reducesTrailing(n)) {
        const k = newLoop(n, n.inputs[0]!.shape, n);
        innerOf.set(n, k.main);
      } else place(n, newLoop(n, n.shape).main);
    }
  }

  const hasBuffer = (n: Node) =>
    n.op === "param" || n.op === "data" || n.op === "arg" || (n.op === "const" && typeof n.attrs.value !== "number") || (written.has(n) && !isLeaf(n));
  const layout = (n: Node) => layoutOf(n, hasBuffer);
  // Copy a non-contiguous view into a buffer of its own where a reshape or an op kernel needs one.
  const needContiguous = (x: Node) => {
    const l = layout(x);
    if (l.kind === "buf" && !isContiguous(l)) {
      place(x, newLoop(x, x.shape).main);
      written.add(x);
    }
  };
  for (const n of order) {
    // A reshape that only adds or drops axes of length 1 re-indexes any window (layout.ts).
    if (n.op === "reshape") {
      if (!isUnitReshape(n.inputs[0]!.shape, n.shape)) needContiguous(n.inputs[0]!);
    }
    else if (!isLeaf(n) && !isView(n.op) && !isFusible(n) && !isFusedScatter(n) && n.op !== "matmul" && n.op !== "tuple_get") n.inputs.forEach(needContiguous);
  }

  for (const s of scopes) s.nodes.sort((a, b) => position.get(a)! - position.get(b)!);
  kernels.sort((a, b) => position.get(a.root)! - position.get(b.root)!);
  const merged = mergeLoops(kernels, scopes, scopeOf, written);
  for (const s of merged) s.nodes.sort((a, b) => position.get(a)! - position.get(b)!);
  shareSiblingLoops(scopes, scopeOf, innerOf, position);
  sinkProducers(kernels, scopes, scopeOf, innerOf, written, users, isOutput, position);
  return { order, kernels, scopeOf, innerOf, written, layout };
}

/**
 * Merges a loop kernel into the earliest earlier loop kernel over the same shape that it can join:
 * no kernel in between writes or computes anything it reads, and it reads what the earlier loop writes only directly, at the
 * same index (a node of the earlier loop's main scope, of the loop's full shape: its value at this
 * index is the local variable), never through a view or from an inner loop (other indices, which the
 * merged loop may not have written yet). The merged kernel computes the same operations on the
 * same values, earlier: results are unchanged, bit for bit, while the loop overhead and the re-reads
 * of stored values go. Returns the scopes whose nodes grew.
 */
function mergeLoops(kernels: Kernel[], scopes: Scope[], scopeOf: Map<Node, Scope>, written: ReadonlySet<Node>): Scope[] {
  const scopesOf = new Map<LoopKernel, Scope[]>();
  for (const s of scopes) (scopesOf.get(s.kernel) ?? scopesOf.set(s.kernel, []).get(s.kernel)!).push(s);
  const nodesOf = (k: Kernel): Node[] => (k.kind === "loop" ? (scopesOf.get(k) ?? []).flatMap((s) => s.nodes) : [k.root]);
  // The nodes a kernel reads from other kernels: directly (an input of one of its elementwise or
  // reduction nodes), or through a view (re-indexed: a view input, or a view node of its own).
  const reads = (k: Kernel): { direct: Set<Node>; viewed: Set<Node> } => {
    const own = new Set(nodesOf(k));
    const direct = new Set<Node>();
    const viewed = new Set<Node>();
    const visit = (x: Node, through: boolean): void => {
      if (own.has(x) && !isView(x.op)) return;
      // A view copied into a buffer of its own (needContiguous) is read from that buffer, which its copy kernel writes.
      if (isView(x.op) && !(written.has(x) && !own.has(x))) return x.inputs.forEach((i) => visit(i, true));
      (through ? viewed : direct).add(x);
    };
    // Only an elementwise node of the main scope reads its inputs at the loop's index; a node of an
    // inner loop (a reduction's producers) reads them at every index of that loop, before the merged
    // loop has computed them (sum(x · exp(w), 1) with w broadcast over the rows: exp(w)'s loop over
    // [2] must not merge into the loop over the rows).
    const main = k.kind === "loop" ? k.main : undefined;
    for (const n of own) n.inputs.forEach((i) => visit(i, !(isElementwise(n.op) && scopeOf.get(n) === main)));
    return { direct, viewed };
  };
  const writes = (k: Kernel): Node[] => {
    if (k.kind === "op") return k.root.op === "scan" ? [...written].filter((n) => n.op === "tuple_get" && n.inputs[0] === k.root) : [k.root];
    return [...nodesOf(k).filter((n) => written.has(n)), ...(k.scatter ? [k.scatter] : [])];
  };
  const sameShape = (a: readonly number[], b: readonly number[]): boolean => a.length === b.length && a.every((d, i) => d === b[i]);
  const grown = new Set<Scope>();
  for (let j = 1; j < kernels.length; j++) {
    const b = kernels[j]!;
    if (b.kind !== "loop" || b.scatter) continue;
    const { direct, viewed } = reads(b);
    const needs = new Set([...direct, ...viewed]);
    // The earliest loop b can join: merging as early as it can gathers the sums over the same rows
    // of several kernels into one kernel, where they share a loop (siblings.ts).
    let into: LoopKernel | undefined;
    for (let i = j - 1; i >= 0; i--) {
      const a = kernels[i]!;
      if (a.kind === "loop" && !a.scatter && sameShape(a.main.shape, b.main.shape)) {
        const fromA = new Set(writes(a));
        const local = (x: Node): boolean => scopeOf.get(x) === a.main && sameShape(x.shape, a.main.shape);
        if ([...viewed].every((x) => !fromA.has(x) && scopeOf.get(x)?.kernel !== a) && [...direct].every((x) => (!fromA.has(x) && scopeOf.get(x)?.kernel !== a) || local(x))) into = a;
      }
      // A kernel in between that writes what b reads, or computes it, keeps b after it.
      if (writes(a).some((w) => needs.has(w)) || [...needs].some((x) => scopeOf.get(x)?.kernel === a)) break;
    }
    if (into) {
      const a = into;
      const moved = scopesOf.get(b) ?? [];
      for (const s of moved) {
        s.kernel = a;
        if (s.parent === b.main) s.parent = a.main;
      }
      for (const n of b.main.nodes) {
        scopeOf.set(n, a.main);
        a.main.nodes.push(n);
      }
      scopesOf.get(a)!.push(...moved.filter((s) => s !== b.main));
      scopesOf.delete(b);
      scopes.splice(scopes.indexOf(b.main), 1); // its nodes are a's now
      grown.add(a.main);
      kernels.splice(j, 1);
      j--;
    }
  }
  return [...grown];
}

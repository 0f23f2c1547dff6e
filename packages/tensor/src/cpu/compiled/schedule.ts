import type { Node } from "../../ir/node.ts";
import { isElementwise, isReduce } from "../../ir/ops.ts";
import { sizeOf } from "../../ir/shape.ts";
import { toposort } from "../../graph/toposort.ts";
import { isContiguous, layoutOf, VIEW_OPS, type Layout } from "./layout.ts";

/**
 * The scheduler: groups the nodes of a graph into loop nests ("kernels").
 *
 * A loop kernel iterates over one shape (its main scope). Elementwise nodes join the scope of
 * their users when every user sits in that same scope and the node has the scope's size, so a
 * chain of any length over any number of broadcast inputs is one loop with its intermediates in
 * local variables. A reduction sits in its consumer's scope and owns an inner scope (the loop
 * over its reduced axes) where its producers are computed inline. Anything else — matmul,
 * gather, linear algebra, scan, concat, pad — is an op kernel with its own hand-written loops.
 * Views cost nothing: they re-index a buffer (see layout.ts).
 */

/** One level of a loop nest: the shape it iterates over and the nodes computed at each index. */
export interface Scope {
  readonly shape: readonly number[];
  readonly parent: Scope | undefined;
  /** The reduction whose inner loop this scope is (undefined for a kernel's main scope). */
  readonly owner: Node | undefined;
  readonly kernel: LoopKernel;
  /** Nodes computed here, in graph order. */
  readonly nodes: Node[];
}

/** A fused loop nest. */
export interface LoopKernel {
  readonly kind: "loop";
  readonly root: Node;
  main: Scope;
  /**
   * A reduction over leading axes: the loop runs over its input in row-major order and
   * accumulates into the output buffer (a kept-outer loop would stride through memory).
   */
  readonly scatter: Node | undefined;
}

/** An op with its own loop code. */
export interface OpKernel {
  readonly kind: "op";
  readonly root: Node;
}

export type Kernel = LoopKernel | OpKernel;

export interface Schedule {
  /** Every node of the graph, inputs first. */
  readonly order: readonly Node[];
  /** Kernels in execution order. */
  readonly kernels: readonly Kernel[];
  readonly scopeOf: ReadonlyMap<Node, Scope>;
  /** Reduction → the scope of its inner loop. */
  readonly innerOf: ReadonlyMap<Node, Scope>;
  /** Nodes some kernel stores to a buffer. */
  readonly written: ReadonlySet<Node>;
  /** The layout other kernels read a node through. */
  layout(n: Node): Layout;
}

/** Leaves: inputs bound at run time and constants. */
export const isLeaf = (n: Node): boolean => n.op === "param" || n.op === "data" || n.op === "arg" || n.op === "const";
const isFusible = (n: Node): boolean => isElementwise(n.op) || isReduce(n.op);

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

// Ops cheap enough to recompute at every element of a larger loop they broadcast into (about the cost of a load).
const CHEAP = new Set<string>([
  "neg", "abs", "sign", "square", "floor", "ceil", "not", "stop_gradient", "cast", "select",
  "add", "sub", "mul", "max", "min", "lt", "le", "gt", "ge", "eq", "ne", "and", "or",
]);

// A node joins its users' scope when it has the scope's size. A smaller node (it broadcasts into the
// loop) joins only when cheap: a transcendental of a [D] vector in an [N, D] loop would be computed N
// times over, so it gets a loop of its own instead (loop-invariant hoisting).
function fitsScope(n: Node, s: Scope, isOutput: boolean): boolean {
  if (isReduce(n.op) && !reducesTrailing(n)) return false;
  if (sizeOf(n.shape) === sizeOf(s.shape)) return true;
  return CHEAP.has(n.op) && !isOutput;
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

  const newScope = (shape: readonly number[], kernel: LoopKernel, parent?: Scope, owner?: Node): Scope => {
    const s: Scope = { shape, parent, owner, kernel, nodes: [] };
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
    if (isReduce(n.op)) innerOf.set(n, newScope(n.inputs[0]!.shape, s.kernel, s, n));
  };
  // The one scope every user computes `n` in, or undefined when some user needs it in a buffer.
  const commonScope = (n: Node): Scope | undefined => {
    let found: Scope | undefined;
    for (const u of users.get(n) ?? []) {
      const s = isReduce(u.op) ? innerOf.get(u) : isFusible(u) ? scopeOf.get(u) : undefined;
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
    } else if (isLeaf(n) || VIEW_OPS.has(n.op)) {
      // An output must be a fresh contiguous array: copy it.
      if (isOutput.has(n)) {
        place(n, newLoop(n, n.shape).main);
        written.add(n);
      }
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
    if (n.op === "reshape") needContiguous(n.inputs[0]!);
    else if (!isLeaf(n) && !VIEW_OPS.has(n.op) && !isFusible(n) && n.op !== "matmul" && n.op !== "tuple_get") n.inputs.forEach(needContiguous);
  }

  for (const s of scopes) s.nodes.sort((a, b) => position.get(a)! - position.get(b)!);
  kernels.sort((a, b) => position.get(a.root)! - position.get(b.root)!);
  return { order, kernels, scopeOf, innerOf, written, layout };
}

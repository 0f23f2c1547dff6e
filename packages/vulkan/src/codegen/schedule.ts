import { type Node } from "@ppl/tensor";
import { OP_TRAITS, toposort, userCounts, type Op } from "@ppl/tensor/ir";

/** Whether nodes of an op always get a kernel and storage of their own (reductions, products, factorisations, …): its trait `materialized`. */
export function isAlwaysMaterialized(op: Op): boolean {
  return OP_TRAITS[op].materialized;
}

/** The nodes of a graph, and which of them get storage (a buffer or local array) rather than being inlined. */
export interface Schedule {
  /** All nodes, inputs first. */
  readonly order: readonly Node[];
  /** Materialized nodes that need a kernel (or a loop), inputs first; a scan stands for all its outputs. */
  readonly kernels: readonly Node[];
  /** Leaves read from storage: params, data, array constants, scan args. */
  readonly leaves: readonly Node[];
  /** True when `n` has storage. */
  isStored(n: Node): boolean;
}

/** How `schedule` trades recomputation against kernels. */
export interface ScheduleOptions {
  /**
   * Element-operations of inline recomputation that may replace a kernel: a shared node whose
   * inline cost times the positions its consumers read stays inlined at or below this (0, the
   * default: every shared node worth 6 or more is stored). A multi-kernel program gives its
   * device's RenderLimits.recomputeBudget, as each kernel it saves is a dispatch and a barrier;
   * a single-thread program recomputes for nothing and keeps 0.
   */
  readonly recomputeBudget?: number;
  /**
   * Nodes to store and compute in kernels of their own whatever their cost (binding-budget.ts:
   * so that a consumer reads one buffer instead of the many its inline producers read).
   */
  readonly materialize?: ReadonlySet<Node>;
}

/**
 * Decide fusion: elementwise and movement ops are inlined into whichever kernel consumes them,
 * except when their inline cost would be paid many times — a node with several users, or one
 * broadcast to a larger shape — in which case it gets its own storage and kernel, unless the
 * recomputation stays within `recomputeBudget`.
 */
export function schedule(outputs: readonly Node[], options: ScheduleOptions = {}): Schedule {
  const budget = options.recomputeBudget ?? 0;
  const materialize = options.materialize ?? new Set<Node>();
  const order = toposort(outputs);
  const users = userCounts(outputs);
  const outs = new Set(outputs);
  const stored = new Set<Node>();
  const leaves: Node[] = [];
  const kernels: Node[] = [];
  const inlineCost = new Map<Node, number>();
  // Nodes read at more positions than they have elements are broadcast; those a matmul or a
  // factorization reads re-read each element many times, so they are never recomputed inline.
  const broadcast = new Set<Node>();
  const reRead = new Set<Node>();
  // Positions read of each node, over all its consumers: an elementwise consumer reads it once an
  // element of its own, a reduction every element of it (a slice is counted as the whole).
  const reads = new Map<Node, number>();
  for (const n of order) {
    for (const x of n.inputs) {
      reads.set(x, (reads.get(x) ?? 0) + Math.max(n.size, x.size));
      if (OP_TRAITS[n.op].rereads) reRead.add(x);
      if (x.size < n.size || reRead.has(x)) broadcast.add(x);
    }
    // A scan's consts are read at every one of its steps: computed inline, their work is paid
    // length times over (an HMM's log transition matrix, from its simplex parameters, at each step).
    if (n.op === "scan") {
      const body = n.attrs.body!;
      for (const x of n.inputs.slice(body.nCarry + body.nX)) {
        reRead.add(x);
        broadcast.add(x);
      }
    }
  }
  for (const n of order) {
    if (n.op === "param" || n.op === "data" || n.op === "arg" || (n.op === "const" && typeof n.attrs.value !== "number")) {
      stored.add(n);
      leaves.push(n);
      continue;
    }
    if (n.op === "tuple_get") {
      stored.add(n); // written by its scan's kernel
      continue;
    }
    if (n.op === "scan") {
      kernels.push(n); // one kernel runs the whole recurrence and writes every tuple_get
      continue;
    }
    const cost = OP_TRAITS[n.op].cost + n.inputs.reduce((s, x) => s + (stored.has(x) ? 0 : inlineCost.get(x) ?? 0), 0);
    inlineCost.set(n, cost);
    const shared = (users.get(n) ?? 0) > 1 || broadcast.has(n);
    const cheapToRecompute = budget > 0 && !reRead.has(n) && cost * (reads.get(n) ?? 0) <= budget;
    if (OP_TRAITS[n.op].materialized || outs.has(n) || materialize.has(n) || (shared && cost >= 6 && !cheapToRecompute)) {
      if (n.op === "const") {
        continue; // a scalar fill output is written by its own trivial kernel below
      }
      stored.add(n);
      kernels.push(n);
    }
  }
  // Outputs that are scalar constants still need a buffer written.
  for (const o of outputs) {
    if (!stored.has(o)) {
      stored.add(o);
      kernels.push(o);
    }
  }
  return { order, kernels, leaves, isStored: (n) => stored.has(n) };
}

import { GraphError, Node } from "@ppl/tensor";
import { isReduce, toposort } from "@ppl/tensor/ir";
import type { RenderLimits } from "./limits.ts";
import { schedule, type Schedule } from "./schedule.ts";
import type { KernelPlan } from "./shader.ts";

// Every stored node a kernel reads through its inline producers is one storage-buffer binding,
// and a device binds at most RenderLimits.maxStorageBuffers per shader (lavapipe: 32). A graph
// that stacks many separately stored values — an ODE solved as one scan per output interval,
// each interval's state its own tuple_get — has a consumer whose inline concat reads them all.
// Before rendering, such kernels are brought within the limit: a wide concat becomes a tree of
// concats whose inner nodes are stored (each reads a share of the inputs, the consumer reads the
// few inner results), and an inline producer reading many buffers gets a kernel of its own. Both
// only copy or move where values are computed, so the results are the same to the bit.

/** Buffers a reduction, matmul or scatter kernel may bind besides its inputs: its result and up to two scratch buffers (partials, a counter or a layout). */
const RESERVED_LOOPING = 3;

/** Rounds of rewriting before giving up (then checkKernelBindings reports what is left): each narrows every over-budget kernel by about a kernel's worth of buffers. */
const MAX_ROUNDS = 100;

/** A graph (possibly rewritten: wide concats split) and its schedule, every kernel of which reads few enough buffers. */
export interface FittedSchedule {
  /** The outputs of the rewritten graph, in the order given: the same nodes unless a concat upstream was split. */
  readonly outputs: readonly Node[];
  readonly schedule: Schedule;
}

/**
 * Schedule `outputs` so that no kernel's inline closure reads more stored nodes than the
 * device's storage buffers allow: wide concats are rebuilt as trees of stored concats (order
 * kept), and inline producers that read many buffers are materialized. The graph is unchanged
 * (same nodes, same schedule) when every kernel already fits.
 */
export function scheduleWithinBindings(outputs: readonly Node[], limits: Pick<RenderLimits, "recomputeBudget" | "maxStorageBuffers">): FittedSchedule {
  const max = limits.maxStorageBuffers;
  let outs = outputs;
  let materialize = new Set<Node>();
  let sched = schedule(outs, { recomputeBudget: limits.recomputeBudget });
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const fix = bindingFixes(sched, max);
    if (fix.split.size === 0 && fix.materialize.size === 0) break;
    ({ outputs: outs, materialize } = applyFixes(outs, sched, new Set([...materialize, ...fix.materialize]), fix.split, max));
    sched = schedule(outs, { recomputeBudget: limits.recomputeBudget, materialize });
  }
  return { outputs: outs, schedule: sched };
}

/** Throw a GraphError naming the first kernel that binds more buffers than the device allows (before the driver refuses its pipeline). */
export function checkKernelBindings(kernels: readonly KernelPlan[], maxStorageBuffers: number): void {
  for (const k of kernels) {
    if (k.bindings.length <= maxStorageBuffers) continue;
    const n = k.node;
    const fix = n.op === "scan"
      ? "pass the scan fewer separate arrays (stack its inputs into one tensor) or split it into several scans"
      : "read fewer separately computed tensors in one expression (concat or stack them earlier, or sum them in stages)";
    throw new GraphError(
      `codegen: the kernel for ${n.op} [${n.shape.join(",")}] (node ${n.hash}) binds ${k.bindings.length} storage buffers, ` +
        `more than the device's ${maxStorageBuffers} per shader (maxStorageBuffers): ${fix}`,
    );
  }
}

// Buffers a kernel binds besides the stored nodes its inline closure reads.
function reserved(n: Node): number {
  return isReduce(n.op) || n.op === "matmul" || n.op === "scatter_add" ? RESERVED_LOOPING : 1;
}

interface Fixes {
  /** Concats (stored or inline) to rebuild as trees. */
  readonly split: Set<Node>;
  /** Inline nodes to give kernels of their own. */
  readonly materialize: Set<Node>;
}

// The stored nodes each node's value is computed from inline (itself, when it is stored).
function readSets(sched: Schedule): (n: Node) => ReadonlySet<Node> {
  const memo = new Map<Node, ReadonlySet<Node>>();
  const reads = (n: Node): ReadonlySet<Node> => {
    let r = memo.get(n);
    if (r === undefined) {
      r = sched.isStored(n) ? new Set([n]) : union(n.inputs.map(reads));
      memo.set(n, r);
    }
    return r;
  };
  return reads;
}

function union(sets: readonly ReadonlySet<Node>[]): ReadonlySet<Node> {
  if (sets.length === 1) return sets[0]!;
  const out = new Set<Node>();
  for (const s of sets) for (const x of s) out.add(x);
  return out;
}

// What to change so that the over-budget kernels of a schedule read fewer buffers: the wide
// concats among their inline producers, else the largest inline producers that fit a kernel.
function bindingFixes(sched: Schedule, max: number): Fixes {
  const reads = readSets(sched);
  const split = new Set<Node>();
  const materialize = new Set<Node>();
  const wide = max - RESERVED_LOOPING;
  for (const k of sched.kernels) {
    // A scan binds its arguments and every output; nothing here can narrow it (checkKernelBindings reports it).
    if (k.op === "scan") continue;
    const cap = max - reserved(k);
    if (kernelReads(k, sched, materialize).size <= cap) continue;
    const concats = inlineClosure(k, sched).filter((n) => n.op === "concat" && union(n.inputs.map(reads)).size > Math.min(cap, wide));
    if (concats.length > 0) {
      concats.forEach((c) => split.add(c));
      continue;
    }
    // The largest inline producers that read several buffers and fit a kernel of their own, found
    // by descending from the kernel through those that do not fit; materialized largest first
    // until the kernel fits. (A chain of n binary ops over stored values is so cut into about
    // n / max kernels, the remaining over-budget part narrowed again in the next round.)
    const candidates: Node[] = [];
    const seen = new Set<Node>();
    const descend = (n: Node): void => {
      for (const x of n.inputs) {
        if (sched.isStored(x) || seen.has(x) || reads(x).size <= 1) continue;
        seen.add(x);
        if (reads(x).size <= max - reserved(x)) candidates.push(x);
        else descend(x);
      }
    };
    descend(k);
    candidates.sort((a, b) => reads(b).size - reads(a).size);
    for (const x of candidates) {
      if (kernelReads(k, sched, materialize).size <= cap) break;
      materialize.add(x);
    }
  }
  return { split, materialize };
}

// The stored nodes a kernel reads, with the nodes of `materialize` stored too.
function kernelReads(k: Node, sched: Schedule, materialize: ReadonlySet<Node>): ReadonlySet<Node> {
  const memo = new Map<Node, ReadonlySet<Node>>();
  const reads = (n: Node): ReadonlySet<Node> => {
    let r = memo.get(n);
    if (r === undefined) {
      r = sched.isStored(n) || materialize.has(n) ? new Set([n]) : union(n.inputs.map(reads));
      memo.set(n, r);
    }
    return r;
  };
  return union(k.inputs.map(reads));
}

// A kernel's node and the nodes it computes inline.
function inlineClosure(k: Node, sched: Schedule): Node[] {
  const seen = new Set<Node>([k]);
  const stack = [k];
  while (stack.length > 0) {
    for (const x of stack.pop()!.inputs) {
      if (!sched.isStored(x) && !seen.has(x)) {
        seen.add(x);
        stack.push(x);
      }
    }
  }
  return [...seen];
}

interface Item {
  readonly node: Node;
  /** The stored nodes (of the old graph, or new inner concats) its value is read from. */
  readonly reads: ReadonlySet<Node>;
}

// Rebuild the graph with the split concats as trees; returns the new outputs and the nodes to
// materialize in it (the given ones, rebuilt, and every inner concat).
function applyFixes(
  outputs: readonly Node[], sched: Schedule, materialize: ReadonlySet<Node>, split: ReadonlySet<Node>, max: number,
): { outputs: Node[]; materialize: Set<Node> } {
  const reads = readSets(sched);
  const cap = Math.max(2, max - RESERVED_LOOPING);
  const memo = new Map<Node, Node>();
  const stored = new Set<Node>();
  const readsOf = (x: Node): ReadonlySet<Node> => (materialize.has(x) ? new Set([x]) : reads(x));
  for (const n of toposort(outputs)) {
    const inputs = n.inputs.map((x) => memo.get(x)!);
    let made: Node;
    if (split.has(n)) {
      const items = n.inputs.map((x, i): Item => ({ node: inputs[i]!, reads: readsOf(x) }));
      made = concatTree(n, items, cap, stored);
      // A concat that had a kernel keeps one (now reading the few inner results).
      if (sched.isStored(n)) stored.add(made);
    } else {
      made = inputs.some((x, i) => x !== n.inputs[i]) ? Node.make(n.op, n.dtype, n.shape, inputs, n.attrs) : n;
    }
    memo.set(n, made);
    if (materialize.has(n)) stored.add(made);
  }
  return { outputs: outputs.map((o) => memo.get(o)!), materialize: stored };
}

/**
 * `c` (a concat) over `items`, as concats of consecutive runs of its inputs, each run reading at
 * most `cap` buffers, run inner concats into `stored`; repeated until the top reads at most `cap`.
 * The order of the inputs is kept, so every element is the same copy of the same value.
 */
function concatTree(c: Node, items: readonly Item[], cap: number, stored: Set<Node>): Node {
  const axis = c.attrs.axis!;
  const make = (parts: readonly Node[]): Node => {
    if (parts.length === 1) return parts[0]!;
    const shape = [...parts[0]!.shape];
    shape[axis] = parts.reduce((s, p) => s + p.shape[axis]!, 0);
    return Node.make("concat", c.dtype, shape, parts, { axis });
  };
  let level = [...items];
  while (level.length > 1 && union(level.map((it) => it.reads)).size > cap) {
    const total = union(level.map((it) => it.reads)).size;
    // Runs of about equal reads: ⌈total / cap⌉ of them, rather than full ones and a remainder.
    const target = Math.max(2, Math.ceil(total / Math.ceil(total / cap)));
    const runs = consecutiveRuns(level, target);
    if (runs.length === level.length) {
      // Every item alone fills a run: give those reading several buffers kernels of their own.
      // (Then every item reads one buffer and, with target ≥ 2, the next runs join several.)
      level = level.map((it) => (it.reads.size > 1 ? stores(it.node, stored) : it));
      continue;
    }
    level = runs.map((run) => (run.length === 1 ? run[0]! : stores(make(run.map((it) => it.node)), stored)));
  }
  return make(level.map((it) => it.node));
}

// An item for `node` once it is stored: read as its own buffer.
function stores(node: Node, stored: Set<Node>): Item {
  stored.add(node);
  return { node, reads: new Set([node]) };
}

// Consecutive runs of items whose reads together stay within `cap` (an item reading more is a run of its own).
function consecutiveRuns(items: readonly Item[], cap: number): Item[][] {
  const runs: Item[][] = [];
  let run: Item[] = [];
  let bound = new Set<Node>();
  for (const it of items) {
    const joined = new Set([...bound, ...it.reads]);
    if (run.length > 0 && joined.size > cap) {
      runs.push(run);
      run = [it];
      bound = new Set(it.reads);
    } else {
      run.push(it);
      bound = joined;
    }
  }
  if (run.length > 0) runs.push(run);
  return runs;
}

import { type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import type { KernelFactory } from "../kernel-factory.ts";
import type { RenderLimits } from "../limits.ts";
import type { KernelPlan } from "../shader.ts";
import { splitReduceKernels } from "./parallel.ts";
import { reducePartitions } from "./strategy.ts";

// Sums over the same elements in one pass. A gradient holds several sums over one set of rows: a
// hierarchical regression's log likelihood, and the gradients of its slope, its noise scale and
// (sum-scatters-over-rows.ts) its group-level parameters, all sums over 100k rows of terms of
// the same residual. As kernels of their own (merged into one dispatch, each on its own
// workgroups) every one of them reads the rows and computes the residual again; as one kernel
// each thread computes the residual of a row once and folds every sum's term of it into that
// sum's state. Each sum is folded, split and merged exactly as it would be alone, so the results
// are the same bits. (The CPU's compiled path shares sibling reductions' loops likewise:
// tensor/src/cpu/compiled/siblings.ts.)

/** reduce_sum nodes rendered as one kernel, at the place of the last of them. */
export interface ReduceSiblings {
  readonly kind: "reduce-siblings";
  /** In run order; at least two. */
  readonly members: readonly Node[];
  /** Workgroups per output, as each member alone would have. */
  readonly partitions: number;
}

/** True for a group of sibling reductions among the items of a run order. */
export function isReduceSiblings<T extends object>(x: T | ReduceSiblings): x is ReduceSiblings {
  return (x as ReduceSiblings | undefined)?.kind === "reduce-siblings";
}

/** Sums a kernel may hold: each is a state per thread and a shared array of the workgroup's size. */
const MAX_SIBLINGS = 8;

/**
 * The groups of parallel sums (reducePartitions > 0) over inputs of one shape, dtype and axes
 * among `kernels` (stored nodes in run order) that none of the others in the group depends on,
 * directly or through other kernels; `reads(n)` are the stored nodes the kernel of n reads. A
 * group runs at its last member's place, and what reads an earlier member moves after it
 * (placeSiblings).
 */
export function findReduceSiblings(kernels: readonly Node[], reads: (n: Node) => ReadonlySet<Node>, limits: RenderLimits): ReduceSiblings[] {
  const ancestors = new Map<Node, ReadonlySet<Node>>();
  const above = (n: Node): ReadonlySet<Node> => {
    let a = ancestors.get(n);
    if (!a) {
      const set = new Set<Node>();
      for (const x of reads(n)) {
        set.add(x);
        for (const y of above(x)) set.add(y);
      }
      ancestors.set(n, (a = set));
    }
    return a;
  };
  const groups = new Map<string, { members: Node[]; partitions: number }[]>();
  for (const n of kernels) {
    const part = siblingKey(n, limits);
    if (!part) continue;
    const list = groups.get(part.key) ?? groups.set(part.key, []).get(part.key)!;
    // Members are in run order, so only n can depend on one of them. The kernel binds what the
    // members read, their outputs and two scratch buffers: within the device's limit per shader.
    const bindings = (g: { members: Node[] }) => new Set([...g.members, n].flatMap((m) => [...reads(m)])).size + g.members.length + 1 + 2;
    const fits = list.find((g) => g.members.length < MAX_SIBLINGS && !g.members.some((m) => above(n).has(m)) && bindings(g) <= limits.maxStorageBuffers);
    if (fits) fits.members.push(n);
    else list.push({ members: [n], partitions: part.partitions });
  }
  return [...groups.values()].flat().filter((g) => g.members.length > 1).map((g) => ({ kind: "reduce-siblings", members: g.members, partitions: g.partitions }));
}

/**
 * The run order with each group of sibling sums in place of its members: every item as early as
 * the items it reads allow and otherwise in the given order (a group at its last member's
 * place), so that what read an earlier member runs after the group. `nodesOf` gives the stored
 * nodes an item computes (a node item: itself), `reads` the stored nodes a node's kernel reads.
 */
export function placeSiblings<T>(
  items: readonly T[], groups: readonly ReduceSiblings[], nodesOf: (item: T) => readonly Node[], reads: (n: Node) => ReadonlySet<Node>,
): (T | ReduceSiblings)[] {
  const groupOf = new Map(groups.flatMap((g) => g.members.map((m) => [m, g] as const)));
  // The units to order: items outside groups, and each group at its last member's position.
  const units: { item: T | ReduceSiblings; nodes: readonly Node[] }[] = [];
  for (const it of items) {
    const ns = nodesOf(it);
    const g = ns.length === 1 ? groupOf.get(ns[0]!) : undefined;
    if (!g) units.push({ item: it, nodes: ns });
    else if (g.members[g.members.length - 1] === ns[0]) units.push({ item: g, nodes: g.members });
  }
  const owner = new Map<Node, number>();
  units.forEach((u, k) => u.nodes.forEach((n) => owner.set(n, k)));
  const deps = units.map((u, k) => {
    const d = new Set<number>();
    for (const n of u.nodes) {
      for (const x of reads(n)) {
        const o = owner.get(x);
        if (o !== undefined && o !== k) d.add(o);
      }
    }
    return d;
  });
  const placed = new Set<number>();
  const out: (T | ReduceSiblings)[] = [];
  while (out.length < units.length) {
    const next = units.findIndex((_, k) => !placed.has(k) && [...deps[k]!].every((d) => placed.has(d)));
    if (next < 0) throw new Error("siblings: the groups' dependencies form a cycle");
    placed.add(next);
    out.push(units[next]!.item);
  }
  return out;
}

function siblingKey(n: Node, limits: RenderLimits): { key: string; partitions: number } | undefined {
  if (n.op !== "reduce_sum" || (n.dtype !== "f32" && n.dtype !== "f64")) return undefined;
  const x = n.inputs[0]!;
  const axes = n.attrs.axes!;
  const partitions = reducePartitions(n.size, sizeOf(axes.map((a) => x.shape[a]!)), limits);
  if (partitions === 0) return undefined;
  return { key: `${n.dtype}|${x.shape.join(",")}|${axes.join(",")}|${partitions}`, partitions };
}

/** The sums of `g` as one split reduction (parallel.ts), a state per sum. */
export function siblingReduceKernels(g: ReduceSiblings, f: KernelFactory): KernelPlan[] {
  return splitReduceKernels(g.members, g.partitions, f);
}

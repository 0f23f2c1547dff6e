import { constant, GraphError, type Node } from "@ppl/tensor";
import { checkIndexRange, knownIndices } from "./index-range.ts";

/**
 * Where the entries of a scatter_add go, grouped by target: `order` lists the flat positions of
 * the index tensor sorted by target, entries of one target in their original order (a stable
 * sort), and target j's entries are order[offsets[j]] … order[offsets[j+1] − 1]. With it each
 * output element sums only its own segment — O(N + J) work in all instead of every output
 * looking at all N entries — and always in the same order, so results are bit-reproducible and
 * equal to the CPU backends' (which add the entries in index order too).
 */
export interface SegmentLayout {
  /** N flat positions into the index tensor, stably sorted by target. */
  readonly order: Int32Array;
  /** J + 1 starts of each target's run in `order` (the last is N). */
  readonly offsets: Int32Array;
  /** Entries of the largest segment. */
  readonly longest: number;
}

/** The segment layout of flat `indices` into `targets` positions by a stable counting sort (O(N + J)); every index must be in [0, targets). */
export function segmentLayout(indices: ArrayLike<number>, targets: number): SegmentLayout {
  const n = indices.length;
  const offsets = new Int32Array(targets + 1);
  for (let p = 0; p < n; p++) offsets[indices[p]! + 1]!++;
  let longest = 0;
  for (let j = 0; j < targets; j++) {
    longest = Math.max(longest, offsets[j + 1]!);
    offsets[j + 1]! += offsets[j]!;
  }
  const next = offsets.slice(0, targets);
  const order = new Int32Array(n);
  for (let p = 0; p < n; p++) order[next[indices[p]!]!++] = p;
  return { order, offsets, longest };
}

/** A segment layout as i32 constants a shader reads (a buffer each, or a literal when all values are equal). */
export interface SegmentNodes {
  readonly order: Node;
  readonly offsets: Node;
  readonly longest: number;
}

const known = new WeakMap<Node, SegmentNodes | null>();

/**
 * The layout of a scatter_add whose indices are fixed when the program is built (constants), as
 * constant nodes; undefined when they are known only at run time. Throws an IndexRangeError for an
 * index outside the output's axis. Memoized per node: planning and rendering ask for it alike.
 */
export function knownSegments(node: Node): SegmentNodes | undefined {
  let s = known.get(node);
  if (s === undefined) {
    const ind = node.inputs[1]!;
    const values = knownIndices(ind);
    const targets = node.shape[node.attrs.axis!]!;
    if (values) {
      checkIndexRange("scatter_add", values, targets, "the constant indices");
      const l = segmentLayout(values, targets);
      s = { order: constant(l.order, [l.order.length], "i32"), offsets: constant(l.offsets, [targets + 1], "i32"), longest: l.longest };
    } else s = null;
    known.set(node, s);
  }
  return s ?? undefined;
}

/**
 * The buffers of the known segment layouts of the scatter_adds in `nodes` (constants with arrays
 * of values). A segment longer than `loopBudget` (a driver that silently ends longer loops:
 * lavapipe) is a GraphError rather than a sum cut short.
 */
export function segmentConstants(nodes: readonly Node[], loopBudget: number): Node[] {
  const out = new Set<Node>();
  for (const n of nodes) {
    if (n.op !== "scatter_add") continue;
    const s = knownSegments(n);
    if (!s || s.longest === 0) continue; // no entries: the kernel reads no layout
    if (s.longest > loopBudget) {
      throw new GraphError(
        `scatter_add: one target receives ${s.longest} entries, more than the ${loopBudget} loop iterations this device runs per thread; ` +
          "run the model on the CPU backend or on a GPU driver without that limit",
      );
    }
    for (const c of [s.order, s.offsets]) if (typeof c.attrs.value !== "number") out.add(c);
  }
  return [...out];
}

import { isElementwise, OP_TRAITS } from "@ppl/tensor/ir";
import type { Node } from "@ppl/tensor";
import type { SlicedValue } from "./kernel-plan.ts";
import { sliceScratch } from "./slice-sum.ts";

// A row pass leaves each of its sums as partials, one a workgroup, and a merge kernel adds them; a
// split reduction's last workgroup counts the others done and adds them (reduce/parallel.ts).
// When the partials are few and the sum's only readers are small elementwise kernels (the
// assembly of lp and the gradient from the pass's sums), each reader adds the partials of the
// elements it reads itself, in workgroup order: the merge's dispatch, a dependent one (about 2 µs
// on an H200; the 1024-chain gradient went 20.7 → 17.9 µs without its merge), is saved.


/** Most partials a reader adds per element it reads. */
export const INLINE_SLICES = 64;

/** How much larger than the sum a reading kernel may be (each of its elements adds the partials anew). */
const READER_RATIO = 16;

// Ops through which a reader may reach the sum: those that read each input a bounded number of
// times per output element (elementwise ops, views and movements: the gradient's assembly is made
// of them), never a loop over an axis.
const boundedReads = (n: Node) => isElementwise(n.op) || OP_TRAITS[n.op].class === "view" || OP_TRAITS[n.op].class === "movement";

/**
 * The sums whose readers add their partials themselves. `candidates` maps each sum held as
 * partials (a row pass's, a split reduction's) to its partial count; `readers` are the scheduled
 * kernels' nodes (`passMembers` those rendered inside a row pass); `isStored` tells a stored node
 * from an inline one. A sum qualifies when it is not an output, has at most INLINE_SLICES
 * partials, and every kernel that reads it reaches it through bounded reads only and is at most
 * READER_RATIO times its size. (hier's gradient, 8020 elements each adding 49 partials of five
 * sums, took 7.7 µs where its assembly of merged sums took 3.4 on an H100: its sums keep their
 * merge.)
 */
export function inlinedSliceSums(
  candidates: ReadonlyMap<Node, number>, readers: readonly Node[], isStored: (n: Node) => boolean, outputs: readonly Node[], passMembers: ReadonlySet<Node>,
): Map<Node, SlicedValue> {
  const ok = new Map([...candidates].filter(([n, slices]) => slices > 1 && slices <= INLINE_SLICES && !outputs.includes(n)).map(([n]) => [n, true]));
  const read = new Set<Node>();
  for (const k of readers) {
    // A row pass's own sums are read through the pass's other members.
    if (candidates.has(k) && passMembers.has(k)) continue;
    // Each sum this kernel reads, and whether every path to it reads boundedly.
    const seen = new Set<Node>();
    const visit = (n: Node, bounded: boolean) => {
      for (const x of n.inputs) {
        if (ok.has(x)) {
          read.add(x);
          if (!bounded || k.size > READER_RATIO * x.size) ok.set(x, false);
        } else if (!isStored(x) && !seen.has(x)) {
          seen.add(x);
          visit(x, bounded && boundedReads(x));
        }
      }
    };
    // A row pass reading a sum reads it at every row: it keeps its merge. So does a reduction,
    // which reads its input at every element of its loop.
    visit(k, boundedReads(k) && !passMembers.has(k));
  }
  const out = new Map<Node, SlicedValue>();
  for (const [n, good] of ok) if (good && read.has(n)) out.set(n, { scratch: sliceScratch(n, candidates.get(n)!, false), slices: candidates.get(n)! });
  return out;
}


import { isElementwise } from "@ppl/tensor/internals";
import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import { flatten } from "./index-math.ts";
import type { Scope } from "./scope.ts";
import { sliceScratch } from "./slice-sum.ts";
import type { ScratchBuffer } from "./shader.ts";

// A row pass leaves each of its sums as partials, one a workgroup, and a merge kernel adds them; a
// split reduction's last workgroup counts the others done and adds them (reduce/parallel.ts).
// When the partials are few and the sum's only readers are small elementwise kernels (the
// assembly of lp and the gradient from the pass's sums), each reader adds the partials of the
// elements it reads itself, in workgroup order: the merge's dispatch, a dependent one (about 2 µs
// on an H200; the 1024-chain gradient went 20.7 → 17.9 µs without its merge), is saved.

/** A node held as `slices` partial sums in a scratch buffer (slice p of element e at p·size + e). */
export interface SlicedValue {
  readonly scratch: ScratchBuffer;
  readonly slices: number;
}

/** Most partials a reader adds per element it reads. */
export const INLINE_SLICES = 64;

/** How much larger than the sum a reading kernel may be (each of its elements adds the partials anew). */
const READER_RATIO = 16;

// Ops through which a reader may reach the sum: those that read each input a bounded number of
// times per output element (elementwise, and the movements and selections the gradient's assembly
// is made of), never a loop over an axis.
const MOVEMENTS: ReadonlySet<string> = new Set(["reshape", "broadcast_to", "transpose", "slice", "pad", "concat", "gather"]);
const boundedReads = (n: Node) => isElementwise(n.op) || MOVEMENTS.has(n.op);

/**
 * The sums whose readers add their partials themselves. `candidates` maps each sum held as
 * partials (a row pass's, a split reduction's) to its partial count; `readers` are the scheduled
 * kernels' nodes (`passMembers` those rendered inside a row pass); `isStored` tells a stored node
 * from an inline one. A sum qualifies when it is not an output, has at most INLINE_SLICES
 * partials, and every kernel that reads it reaches it through bounded reads only, evaluating it at
 * most READER_RATIO times its size. Outside loops a pad or concat computes each input only where
 * it is read (ExprRenderer), so a gradient's assembly evaluates a scalar's sum at one element.
 */
export function inlinedSliceSums(
  candidates: ReadonlyMap<Node, number>, readers: readonly Node[], isStored: (n: Node) => boolean, outputs: readonly Node[], passMembers: ReadonlySet<Node>,
): Map<Node, SlicedValue> {
  const ok = new Map([...candidates].filter(([n, slices]) => slices > 1 && slices <= INLINE_SLICES && !outputs.includes(n)).map(([n]) => [n, true]));
  const read = new Set<Node>();
  for (const k of readers) {
    // A row pass's own sums are read through the pass's other members.
    if (candidates.has(k) && passMembers.has(k)) continue;
    // Each sum this kernel reads, whether every path to it reads boundedly, and how many times
    // its elements evaluate it at most (revisited where a path evaluates it more often).
    const seen = new Map<Node, number>();
    const visit = (n: Node, bounded: boolean, evaluations: number) => {
      n.inputs.forEach((x, i) => {
        const times = evaluations * readShare(n, i);
        if (ok.has(x)) {
          read.add(x);
          if (!bounded || times > READER_RATIO * x.size) ok.set(x, false);
        } else if (!isStored(x) && (seen.get(x) ?? -1) < (bounded ? times : Infinity)) {
          seen.set(x, bounded ? times : Infinity);
          visit(x, bounded && boundedReads(x), times);
        }
      });
    };
    // A row pass reading a sum reads it at every row: it keeps its merge. So does a reduction,
    // which reads its input at every element of its loop.
    visit(k, boundedReads(k) && !passMembers.has(k), k.size);
  }
  const out = new Map<Node, SlicedValue>();
  for (const [n, good] of ok) if (good && read.has(n)) out.set(n, { scratch: sliceScratch(n, candidates.get(n)!, false), slices: candidates.get(n)! });
  return out;
}

// The share of a node's evaluations that evaluate its input i: a pad's or concat's input is read
// by its own elements only (computed in a branch of their own, ExprRenderer.branches).
function readShare(n: Node, i: number): number {
  return n.op === "pad" || n.op === "concat" ? n.inputs[i]!.size / Math.max(1, n.size) : 1;
}

/** Statements in `scope` adding `node`'s partials at `idx` in slice order; the sum's variable. */
export function sliceSumRead(bind: (b: ScratchBuffer) => string, node: Node, v: SlicedValue, idx: readonly string[], scope: Scope, name: string): string {
  scope.emit(`${glslType(node.dtype)} ${name} = ${literal(0, node.dtype)};`);
  scope.emit(`for (int q = 0; q < ${v.slices}; q++) ${name} += ${bind(v.scratch)}[q * ${node.size} + ${flatten(node.shape, idx)}];`);
  return name;
}

import { IndexRangeError, type Node } from "@ppl/tensor";
import { toposortAll } from "./shader.ts";

// A shader cannot raise an error, so an out-of-range index on the device is clamped (gather) or
// dropped (scatter_add). Wherever the values can be seen on the host — indices fixed when the
// program is built, index data when it is bound — they are checked here instead, and a bad entry
// is an IndexRangeError naming it and the range.

/** The values of an index tensor fixed when the program is built (an i32 constant, or no entries at all), else undefined. */
export function knownIndices(ind: Node): ArrayLike<number> | undefined {
  if (ind.size === 0) return new Float64Array(0);
  if (ind.op !== "const") return undefined;
  const v = ind.attrs.value!;
  return typeof v === "number" ? new Float64Array(ind.size).fill(v) : v;
}

/** The number of positions along the indexed axis of a gather (its input's) or scatter_add (its output's). */
export function indexedSize(node: Node): number {
  const axis = node.attrs.axis!;
  return node.op === "gather" ? node.inputs[0]!.shape[axis]! : node.shape[axis]!;
}

/** Throws an IndexRangeError for the first entry of `values` outside [0, size); `source` names the index tensor. */
export function checkIndexRange(op: string, values: ArrayLike<number>, size: number, source?: string): void {
  for (let e = 0; e < values.length; e++) {
    const j = values[e]!;
    if (!(j >= 0 && j < size)) throw new IndexRangeError(op, j, size, e, source);
  }
}

/** Checks every gather and scatter_add under `outputs` whose indices are fixed at build time. */
export function checkKnownIndices(outputs: readonly Node[]): void {
  for (const n of toposortAll(outputs)) {
    if (n.op !== "gather" && n.op !== "scatter_add") continue;
    const values = knownIndices(n.inputs[1]!);
    if (values) checkIndexRange(n.op, values, indexedSize(n), "the constant indices");
  }
}

/** An index input that is a data leaf: its values are checked when they are bound. */
export interface IndexLeaf {
  readonly leaf: Node;
  readonly op: string;
  readonly size: number;
}

/** The data leaves under `outputs` used directly as indices of a gather or scatter_add, with their ranges. */
export function indexLeaves(outputs: readonly Node[]): IndexLeaf[] {
  const out: IndexLeaf[] = [];
  for (const n of toposortAll(outputs)) {
    if ((n.op === "gather" || n.op === "scatter_add") && n.inputs[1]!.op === "data") {
      out.push({ leaf: n.inputs[1]!, op: n.op, size: indexedSize(n) });
    }
  }
  return out;
}

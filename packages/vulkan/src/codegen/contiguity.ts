import type { Node } from "@ppl/tensor";
import { isBinary, isCompare, isUnary } from "@ppl/tensor/ir";

/**
 * True when reading `node` at consecutive positions of its last axis reads consecutive addresses
 * of every buffer behind it (or no buffer at all): stored nodes are row-major, and elementwise
 * ops, casts, broadcasts, last-axis-preserving transposes and unit-step slices keep that. A kernel
 * can then stage blocks of the operand through shared memory with coalesced loads. Conservative:
 * any other op (gathers, pads, concatenations, reshapes of inline values) answers false.
 */
export function lastAxisContiguous(node: Node, isStored: (n: Node) => boolean): boolean {
  if (isStored(node)) return true;
  const op = node.op;
  if (op === "const") return typeof node.attrs.value === "number";
  const last = node.rank - 1;
  // An input broadcast along the last axis (size 1 there, or of lower rank) is the same at every position of it.
  const along = (x: Node) => x.rank === 0 || x.shape[x.rank - 1] === 1 || lastAxisContiguous(x, isStored);
  if (isUnary(op) || isBinary(op) || isCompare(op) || op === "select" || op === "cast" || op === "broadcast_to") return node.inputs.every(along);
  if (op === "transpose") return node.attrs.perm![last] === last && lastAxisContiguous(node.inputs[0]!, isStored);
  if (op === "slice") return node.attrs.steps![last] === 1 && lastAxisContiguous(node.inputs[0]!, isStored);
  if (op === "reshape") return isStored(node.inputs[0]!);
  return false;
}

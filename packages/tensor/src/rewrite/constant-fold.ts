import { constant } from "../api/leaves.ts";
import { interpret } from "../cpu/reference/interpret.ts";
import { Node } from "../ir/node.ts";
import { isElementwise, isView } from "../ir/ops.ts";
import { rebuild } from "../graph/substitute.ts";
import { fillValue, remake } from "./rule.ts";

/**
 * Largest constant (in elements) folding may materialize. Bigger results that are not a single
 * fill value stay as computations: a constant of a million values costs memory on every backend
 * and in every graph hash, while the op that makes it costs nothing.
 */
export const FOLD_LIMIT = 1 << 16;

/** Replace every node whose inputs are all constants by the constant it computes (reference interpreter semantics). */
export function constantFold(outputs: readonly Node[]): Node[] {
  return rebuild(outputs, (node, inputs) => {
    const n = remake(node, inputs);
    return fold(n) ?? n;
  });
}

/** The constant a node folds to, or undefined when it does not fold. */
export function fold(node: Node): Node | undefined {
  if (node.inputs.length === 0 || node.op === "scan") return undefined;
  // A tuple_get reads a scan; it folds when everything the scan reads is constant.
  const leaves = node.op === "tuple_get" ? node.inputs[0]!.inputs : node.inputs;
  if (!leaves.every((x) => x.op === "const")) return undefined;
  if (leaves.every((x) => fillValue(x) !== undefined)) {
    const v = foldFill(node);
    if (v !== undefined) return constant(v, node.shape, node.dtype);
  }
  if (node.size > FOLD_LIMIT || leaves.some((x) => x.size > FOLD_LIMIT)) return undefined;
  try {
    return constant(interpret([node], {})[0]!.data, node.shape, node.dtype);
  } catch {
    // An op that fails on its constants (an index out of range) keeps failing at run time, with its own message.
    return undefined;
  }
}

// The scalar an op over fill constants produces, computed on one element so huge fills stay cheap.
function foldFill(node: Node): number | undefined {
  // A view of a fill, and an elementwise op of fills, is a fill.
  if (isView(node.op)) return fillValue(node.inputs[0]!);
  if (!isElementwise(node.op)) return undefined;
  const scalars = node.inputs.map((x) => Node.make("const", x.dtype, [], [], { value: fillValue(x)! }));
  return interpret([Node.make(node.op, node.dtype, [], scalars, node.attrs)], {})[0]!.data[0];
}

import type { Node } from "../ir/node.ts";
import { BINARY_OPS, COMPARE_OPS, REDUCE_OPS, UNARY_OPS, type LeafOp, type Op, type StructOp } from "../ir/ops.ts";
import { toposort } from "../graph/toposort.ts";

const LEAF_OPS = ["param", "data", "const", "arg"] as const satisfies readonly LeafOp[];
const STRUCT_OPS = [
  "select", "cast", "polygamma",
  "matmul", "reshape", "broadcast_to", "transpose", "slice", "concat", "pad",
  "gather", "scatter_add", "cumsum",
  "scan", "tuple_get",
  "cholesky", "triangular_solve",
] as const satisfies readonly StructOp[];

// Compile-time check: adding an op to ir/ops.ts without listing it here fails to type-check.
type Unlisted = Exclude<LeafOp | StructOp, (typeof LEAF_OPS)[number] | (typeof STRUCT_OPS)[number]>;
const everyOpListed: [Unlisted] extends [never] ? true : never = true;
void everyOpListed;

/** Every op of the IR (the type-level lists of ir/ops.ts made concrete). */
export const ALL_OPS: readonly Op[] = [...LEAF_OPS, ...UNARY_OPS, ...BINARY_OPS, ...COMPARE_OPS, ...REDUCE_OPS, ...STRUCT_OPS];

/** The ops a graph uses, scan bodies included. */
export function opsOf(outputs: readonly Node[]): Set<Op> {
  const ops = new Set<Op>();
  const visit = (outs: readonly Node[]) => {
    for (const n of toposort(outs)) {
      ops.add(n.op);
      if (n.op === "scan") visit(n.attrs.body!.outputs);
    }
  };
  visit(outputs);
  return ops;
}

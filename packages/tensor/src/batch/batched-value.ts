import { broadcastTo, reshape, transpose } from "../api/shape-ops.ts";
import type { Node } from "../ir/node.ts";

/**
 * A node of the batched graph. When `batched`, `node` has a leading axis of the batch size
 * in front of the original shape; otherwise it is the original node, shared by every chain.
 */
export interface BatchedValue {
  readonly node: Node;
  readonly batched: boolean;
  /** scan only: which outputs (final carries, then ys) carry the batch axis. */
  readonly outs?: readonly boolean[];
}

/** What a batching rule needs besides the node and its batched inputs. */
export interface BatchContext {
  /** The batch size C. */
  readonly size: number;
  /** Batch a subgraph (a scan body) whose listed leaves are replaced by batched ones. */
  batchGraph(outputs: readonly Node[], leaves: ReadonlyMap<Node, Node>): BatchedValue[];
}

/** A batching rule: the batched form of `node`, given its inputs' batched forms (at least one is batched). */
export type BatchRule = (node: Node, inputs: readonly BatchedValue[], ctx: BatchContext) => BatchedValue;

/** A batched result. */
export const batched = (node: Node): BatchedValue => ({ node, batched: true });

/**
 * A batched operand made ready for NumPy broadcasting against unbatched operands of rank `rank`:
 * [C, ...s] becomes [C, 1, …, 1, ...s] with rank + 1 axes, so the unbatched operands, aligned on
 * the right, meet the original axes. Unbatched operands are returned as they are.
 */
export function aligned(v: BatchedValue, rank: number): Node {
  if (!v.batched) return v.node;
  const [c, ...s] = v.node.shape;
  return reshape(v.node, [c!, ...new Array<number>(rank - s.length).fill(1), ...s]);
}

/** The operand with a batch axis, broadcasting an unbatched one (only where the op needs every operand batched). */
export function withBatch(v: BatchedValue, size: number): Node {
  return v.batched ? v.node : broadcastTo(v.node, [size, ...v.node.shape]);
}

/** Move axis `from` of `x` to position `to`, keeping the order of the others. */
export function moveAxis(x: Node, from: number, to: number): Node {
  const order = x.shape.map((_, i) => i).filter((i) => i !== from);
  order.splice(to, 0, from);
  return transpose(x, order);
}

import { betainc, betaincGrad, binary, cast, compare, polygamma, select, unary } from "../api/elementwise.ts";
import { cholesky, solve, triangularSolve } from "../api/linalg.ts";
import { eighNode, slogdetNode } from "../api/linalg-nodes.ts";
import { reduce } from "../api/reduce.ts";
import { lpdfSumExpansion } from "../api/lpdf-sum.ts";
import { argsort } from "../api/sort.ts";
import { broadcastTo, concat, cumsum, pad, reshape, slice, transpose } from "../api/shape-ops.ts";
import { Node } from "../ir/node.ts";
import { BINARY_OPS, COMPARE_OPS, REDUCE_OPS, UNARY_OPS, type BinaryOp, type CompareOp, type Op, type ReduceOp, type UnaryOp } from "../ir/ops.ts";
import { aligned, batched, withBatch, type BatchContext, type BatchedValue, type BatchRule } from "./batched-value.ts";
import { gatherRule, scatterAddRule } from "./indexing-rules.ts";
import { matmulRule } from "./matmul-rule.ts";
import { scanRule, tupleGetRule } from "./scan-rule.ts";

/**
 * Leaves have no inputs, so no rule ever sees them with a batched input. Their entry makes a
 * batched leaf: the same param, data or scan arg with a leading batch axis (bound to the stacked
 * values under the same name), or a constant broadcast to every chain.
 */
export const batchLeaf: BatchRule = (node, _inputs, ctx) => {
  const shape = [ctx.size, ...node.shape];
  if (node.op === "const") return batched(broadcastTo(node, shape));
  return batched(Node.make(node.op, node.dtype, shape, [], node.attrs));
};

// Elementwise ops broadcast, so batched operands only need their batch axis lined up in front.
const unaryRule: BatchRule = (node, [x]) => batched(unary(node.op as UnaryOp, x!.node));
const binaryRule: BatchRule = (node, [a, b]) => batched(binary(node.op as BinaryOp, aligned(a!, node.rank), aligned(b!, node.rank)));
const compareRule: BatchRule = (node, [a, b]) => batched(compare(node.op as CompareOp, aligned(a!, node.rank), aligned(b!, node.rank)));
const reduceRule: BatchRule = (node, [x]) => batched(reduce(node.op as ReduceOp, x!.node, node.attrs.axes!.map((a) => a + 1)));

/** The batching rule of every op: the batched node from the batched inputs, one entry per op of ir/ops.ts. */
export const BATCH_RULES: Readonly<Record<Op, BatchRule>> = {
  param: batchLeaf,
  data: batchLeaf,
  const: batchLeaf,
  arg: batchLeaf,
  ...table(UNARY_OPS, unaryRule),
  ...table(BINARY_OPS, binaryRule),
  ...table(COMPARE_OPS, compareRule),
  ...table(REDUCE_OPS, reduceRule),
  select: (node, [c, a, b]) => batched(select(aligned(c!, node.rank), aligned(a!, node.rank), aligned(b!, node.rank))),
  cast: (node, [x]) => batched(cast(x!.node, node.dtype)),
  polygamma: (node, [x]) => batched(polygamma(node.attrs.order!, x!.node)),
  betainc: (node, [a, b, x]) => batched(betainc(aligned(a!, node.rank), aligned(b!, node.rank), aligned(x!, node.rank))),
  betainc_grad: (node, [a, b, x]) =>
    batched(betaincGrad(aligned(a!, node.rank), aligned(b!, node.rank), aligned(x!, node.rank), node.attrs.wrt === 1 ? 1 : 0)),
  matmul: matmulRule,
  reshape: (node, [x], ctx) => batched(reshape(x!.node, [ctx.size, ...node.shape])),
  broadcast_to: (node, [x], ctx) => batched(broadcastTo(aligned(x!, node.rank), [ctx.size, ...node.shape])),
  transpose: (node, [x]) => batched(transpose(x!.node, [0, ...node.attrs.perm!.map((p) => p + 1)])),
  slice: (node, [x]) => {
    const { starts, stops, steps } = node.attrs;
    return batched(slice(x!.node, [undefined, ...starts!.map((start, i) => ({ start, stop: stops![i]!, step: steps![i]! }))]));
  },
  // Unbatched parts of a concat have to be copied per chain: the result holds a copy for each.
  concat: (node, inputs, ctx) => batched(concat(inputs.map((v) => withBatch(v, ctx.size)), node.attrs.axis! + 1)),
  pad: (node, [x]) => batched(pad(x!.node, [[0, 0], ...node.attrs.widths!], node.attrs.padValue ?? 0)),
  gather: gatherRule,
  scatter_add: scatterAddRule,
  cumsum: (node, [x]) => batched(cumsum(x!.node, node.attrs.axis! + 1, node.attrs.reverse ?? false)),
  argsort: (node, [x]) => batched(argsort(x!.node, node.attrs.axis! + 1)),
  scan: scanRule,
  tuple_get: tupleGetRule,
  cholesky: (_node, [x]) => batched(cholesky(x!.node)),
  triangular_solve: (node, [l, b]) =>
    batched(triangularSolve(aligned(l!, node.rank), aligned(b!, node.rank), { lower: node.attrs.lower!, transposeA: node.attrs.transposeA! })),
  solve: (node, [a, b]) => batched(solve(aligned(a!, node.rank), aligned(b!, node.rank))),
  slogdet: (_node, [x]) => batched(slogdetNode(x!.node)),
  eigh: (_node, [x]) => batched(eighNode(x!.node)),
  lpdf_sum: lpdfSumRule,
};

// A batched lpdf_sum sums within each chain only: its expansion (a sum of elementwise terms) is what
// gets batched, so the batched graph (the GPU's, where the node is lowered anyway) has no fused node.
function lpdfSumRule(node: Node, inputs: readonly BatchedValue[], ctx: BatchContext): BatchedValue {
  const leaves = new Map<Node, Node>();
  node.inputs.forEach((x, k) => {
    if (inputs[k]!.batched) leaves.set(x, inputs[k]!.node);
  });
  return ctx.batchGraph([lpdfSumExpansion(node.attrs.family!, node.inputs)], leaves)[0]!;
}

function table<K extends string>(ops: readonly K[], rule: BatchRule): Record<K, BatchRule> {
  return Object.fromEntries(ops.map((op) => [op, rule])) as Record<K, BatchRule>;
}

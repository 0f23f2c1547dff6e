import { arg } from "../api/leaves.ts";
import { transpose } from "../api/shape-ops.ts";
import { Node } from "../ir/node.ts";
import { toposort } from "../graph/toposort.ts";
import { batched, withBatch, type BatchedValue, type BatchRule } from "./batched-value.ts";

/**
 * scan(init, xs, consts). The body is batched recursively: its args whose operands are batched get
 * a leading batch axis. A carry is batched if its initial value is, or if the body makes it depend
 * on something batched; such a carry must be batched from the first step, so its initial value is
 * broadcast. Batched xs are fed as [T, C, ...] (the scan slices axis 0), and batched ys come out as
 * [T, C, ...], which tuple_get turns back to [C, T, ...].
 */
export const scanRule: BatchRule = (node, inputs, ctx) => {
  const body = node.attrs.body!;
  const { nCarry, nX } = body;
  const T = node.attrs.length!;
  const C = ctx.size;
  const args = new Map<number, Node>();
  for (const n of toposort(body.outputs)) if (n.op === "arg") args.set(n.attrs.index!, n);
  // Grow the set of batched carries until the body stops batching new ones.
  const flags = inputs.map((v) => v.batched);
  let out: BatchedValue[];
  for (;;) {
    const leaves = new Map<Node, Node>();
    for (const [i, a] of args) if (flags[i]) leaves.set(a, arg(i, [C, ...a.shape], a.dtype, a.attrs.depth!));
    out = ctx.batchGraph(body.outputs, leaves);
    const grown = out.slice(0, nCarry).some((v, k) => v.batched && !flags[k]);
    if (!grown) break;
    out.slice(0, nCarry).forEach((v, k) => (flags[k] = flags[k] || v.batched));
  }
  const newInputs = inputs.map((v, i) => {
    if (i < nCarry) return flags[i] ? withBatch(v, C) : v.node;
    // xs are sliced along axis 0 by the scan, so the batch axis goes second.
    if (i < nCarry + nX) return v.batched ? swapLeading(v.node) : v.node;
    return v.node;
  });
  const carries = out.slice(0, nCarry).map((v, k) => (flags[k] ? withBatch(v, C) : v.node));
  const ys = out.slice(nCarry);
  const outs = [...flags.slice(0, nCarry), ...ys.map((y) => y.batched)];
  const scan = Node.make("scan", node.dtype, node.shape, newInputs, {
    ...node.attrs,
    body: { ...body, outputs: [...carries, ...ys.map((y) => y.node)] },
    outputs: node.attrs.outputs!.map((o, k) => {
      if (!outs[k]) return o;
      return { dtype: o.dtype, shape: k < nCarry ? [C, ...o.shape] : [T, C, ...o.shape.slice(1)] };
    }),
  });
  return { node: scan, batched: outs.some((b) => b), outs };
};

/** tuple_get of a batched scan: the output as the scan made it, with a batched ys' axes in [C, T, ...] order. */
export const tupleGetRule: BatchRule = (node, [sv]) => {
  const k = node.attrs.index!;
  const scan = sv!.node;
  const o = scan.attrs.outputs![k]!;
  const got = Node.make("tuple_get", o.dtype, o.shape, [scan], { index: k });
  if (!sv!.outs![k]) return { node: got, batched: false };
  return batched(k < scan.attrs.body!.nCarry ? got : swapLeading(got));
};

function swapLeading(x: Node): Node {
  return transpose(x, [1, 0, ...x.shape.slice(2).map((_, i) => i + 2)]);
}

import { constant } from "../../api/leaves.ts";
import { cumsum, gather, pad, reshape, scatterAdd, slice, transpose, type SliceSpec } from "../../api/shape-ops.ts";
import { isFloat } from "../../ir/dtype.ts";
import type { Node } from "../../ir/node.ts";
import type { VjpRule } from "../rule.ts";
import { unbroadcast } from "../unbroadcast.ts";

/** reshape: the cotangent takes the input's shape back. */
export const reshapeRule: VjpRule = (node, ct) => [reshape(ct, node.inputs[0]!.shape)];

/** broadcast_to: sum over the broadcast axes. */
export const broadcastToRule: VjpRule = (node, ct) => [unbroadcast(ct, node.inputs[0]!.shape)];

/** transpose: apply the inverse permutation. */
export const transposeRule: VjpRule = (node, ct) => {
  const perm = node.attrs.perm!;
  const inverse = new Array<number>(perm.length);
  perm.forEach((p, i) => (inverse[p] = i));
  return [transpose(ct, inverse)];
};

// Spread a cotangent along `axis` so consecutive entries are `step` apart (zeros between them),
// leaving (n − 1)·step + 1 entries: reshape to [..., n, 1, ...], pad the new axis to `step`, flatten, trim.
function dilate(ct: Node, axis: number, step: number): Node {
  const n = ct.shape[axis]!;
  const split = [...ct.shape.slice(0, axis + 1), 1, ...ct.shape.slice(axis + 1)];
  const widths = split.map((_, i): [number, number] => (i === axis + 1 ? [0, step - 1] : [0, 0]));
  const spread = reshape(pad(reshape(ct, split), widths), [...ct.shape.slice(0, axis), n * step, ...ct.shape.slice(axis + 1)]);
  const specs: SliceSpec[] = [];
  specs[axis] = { start: 0, stop: (n - 1) * step + 1 };
  return slice(spread, specs);
}

/** slice: scatter the cotangent back into zeros by padding (after dilating axes with steps > 1). */
export const sliceRule: VjpRule = (node, ct) => {
  const x = node.inputs[0]!;
  if (ct.size === 0) return [constant(0, x.shape, ct.dtype)];
  const { starts, steps } = node.attrs;
  let spread = ct;
  steps!.forEach((s, axis) => {
    if (s > 1) spread = dilate(spread, axis, s);
  });
  const widths = x.shape.map((d, i): [number, number] => [starts![i]!, d - starts![i]! - spread.shape[i]!]);
  return [pad(spread, widths)];
};

/** concat: each input gets its own slice of the cotangent. */
export const concatRule: VjpRule = (node, ct) => {
  const axis = node.attrs.axis!;
  let offset = 0;
  return node.inputs.map((x) => {
    const specs: SliceSpec[] = [];
    specs[axis] = { start: offset, stop: offset + x.shape[axis]! };
    offset += x.shape[axis]!;
    return slice(ct, specs);
  });
};

/** pad: the cotangent of the input is the un-padded window; the pad value is a constant. */
export const padRule: VjpRule = (node, ct) => {
  const x = node.inputs[0]!;
  const widths = node.attrs.widths!;
  return [slice(ct, x.shape.map((d, i) => ({ start: widths[i]![0], stop: widths[i]![0] + d })))];
};

/** gather: scatter-add the cotangent back to the gathered positions (repeated indices accumulate). */
export const gatherRule: VjpRule = (node, ct) => {
  const [x, indices] = node.inputs as [Node, Node];
  const axis = node.attrs.axis!;
  return [isFloat(x.dtype) ? scatterAdd(ct, indices, axis, x.shape[axis]!) : null, null];
};

/** scatter_add: each update receives the cotangent at the position it was added to. */
export const scatterAddRule: VjpRule = (node, ct) => {
  const [updates, indices] = node.inputs as [Node, Node];
  return [isFloat(updates.dtype) ? gather(ct, indices, node.attrs.axis!) : null, null];
};

/** cumsum: the adjoint of a running sum is the running sum in the other direction. */
export const cumsumRule: VjpRule = (node, ct) => [isFloat(node.dtype) ? cumsum(ct, node.attrs.axis!, !node.attrs.reverse) : null];

import { sum } from "../api/reduce.ts";
import { reshape } from "../api/shape-ops.ts";
import type { Node } from "../ir/node.ts";
import { ShapeError } from "../ir/errors.ts";
import { fmt, sameShape, type Shape } from "../ir/shape.ts";

/**
 * Reduce a cotangent of a broadcast result back to the shape of the operand that was broadcast:
 * sum over the leading axes the operand lacked and over its size-1 axes, then reshape.
 */
export function unbroadcast(ct: Node, shape: Shape): Node {
  if (sameShape(ct.shape, shape)) return ct;
  const lead = ct.rank - shape.length;
  if (lead < 0) throw new ShapeError(`unbroadcast: cotangent ${fmt(ct.shape)} has lower rank than ${fmt(shape)}`);
  const axes: number[] = [];
  for (let i = 0; i < ct.rank; i++) {
    if (i < lead) axes.push(i);
    else if (shape[i - lead] === 1 && ct.shape[i] !== 1) axes.push(i);
    else if (shape[i - lead] !== ct.shape[i]) throw new ShapeError(`unbroadcast: ${fmt(shape)} does not broadcast to ${fmt(ct.shape)}`);
  }
  return reshape(axes.length > 0 ? sum(ct, axes) : ct, shape);
}

import { type Shape } from "@ppl/tensor";
import { broadcastShapes } from "@ppl/tensor/internals";
import { ModelError } from "../model/errors.ts";

/**
 * Broadcast batch shape of parameters that carry event axes: each entry is the parameter's shape and
 * how many trailing axes are its event (0 for a scalar parameter, 1 for a vector, 2 for a matrix).
 */
export function eventBatchShape(dist: string, params: Record<string, readonly [Shape, number]>): Shape {
  const batches = Object.values(params).map(([s, r]) => s.slice(0, s.length - r));
  try {
    return broadcastShapes(dist, ...batches);
  } catch {
    const desc = Object.entries(params).map(([k, [s]]) => `${k} [${s.join(",")}]`).join(", ");
    throw new ModelError(`${dist}: the parameters' batch axes do not broadcast (${desc}); give parameters of equal batch shape`);
  }
}

import { broadcastShapes, sizeOf } from "../ir/shape.ts";
import type { Node } from "../ir/node.ts";
import type { LpdfFamily } from "../ir/ops.ts";
import { broadcastIndex } from "./reference/indexing.ts";
import { UNARY } from "./scalar.ts";

const HALF_LOG_TWO_PI = 0.5 * Math.log(2 * Math.PI);

// Each family's log density of one element, written as its textbook formula: the oracle the
// expansion in api/lpdf-sum.ts (a different arrangement of the same sums) is tested against.
const TERM: Readonly<Record<LpdfFamily, (y: number, a: number, b: number) => number>> = {
  normal: (y, mu, sigma) => -0.5 * ((y - mu) / sigma) ** 2 - Math.log(sigma) - HALF_LOG_TWO_PI,
  bernoulli_logit: (y, alpha) => UNARY.log_sigmoid((2 * y - 1) * alpha),
  poisson_log: (y, alpha) => y * alpha - Math.exp(alpha) - UNARY.lgamma(y + 1),
};

/** The reference kernel of lpdf_sum: the family's log density of every element of the broadcast, summed in order. */
export function lpdfSumKernel(node: Node, ins: readonly Float64Array[]): Float64Array {
  const shape = broadcastShapes("lpdf_sum", ...node.inputs.map((x) => x.shape));
  const idx = node.inputs.map((x) => broadcastIndex(x.shape, shape));
  const term = TERM[node.attrs.family!];
  const [y, a, b] = ins as [Float64Array, Float64Array, Float64Array | undefined];
  const [iy, ia, ib] = idx as [Int32Array, Int32Array, Int32Array | undefined];
  let total = 0;
  for (let i = 0; i < sizeOf(shape); i++) total += term(y[iy[i]!]!, a[ia[i]!]!, b && ib ? b[ib[i]!]! : 0);
  return Float64Array.of(total);
}

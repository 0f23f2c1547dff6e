import type { Node } from "@ppl/tensor";
import { LOGISTIC_LOWERINGS, LPDF_SUM_LOWERING, lowerOps } from "@ppl/tensor/internals";

/**
 * The graph as the GLSL renderers take it, in one walk: lpdf_sum as its expansion, a sum of
 * elementwise terms the reduction kernels already fuse (the GPU gradient of a regression is bound
 * by reading the data, which a kernel of its own would read as often); sigmoid, softplus and
 * log_sigmoid in exp(−|x|) and log1p, so that a log density's and its gradient's calls of one
 * argument share their exp. The planner (program.ts) and the fused kernels' renderer both start here.
 */
export function lowerForGlsl(outputs: readonly Node[]): Node[] {
  return lowerOps(outputs, { ...LPDF_SUM_LOWERING, ...LOGISTIC_LOWERINGS });
}

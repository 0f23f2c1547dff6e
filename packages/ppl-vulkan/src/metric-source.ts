import type { MetricKind } from "@ppl/ppl";

/** The metric forms the GPU sampler adapts: the CPU sampler's own. */
export type MetricForm = MetricKind;

/** Largest dimension for a dense metric in the workgroup layouts: one shared vector of D reals. */
export const DENSE_MAX_DIM = 2048;

/**
 * GLSL that switches shaders/nuts/common.glsl to a dense metric (nothing for a diagonal one):
 * DENSE_METRIC, and how a matrix-vector product sees every element of a vector. With a thread per
 * chain the thread holds the whole vector; a workgroup per chain gathers it in shared memory.
 */
export function metricSource(form: MetricForm, threadPerChain: boolean, dim: number): string[] {
  if (form === "diag") return [];
  if (threadPerChain) {
    return ["#define DENSE_METRIC", "#define GATHER(v)", "#define GATHERED(v, j) v[j]", "#define GATHER_DONE()"];
  }
  if (dim > DENSE_MAX_DIM) {
    throw new Error(`a dense metric on the GPU takes at most ${DENSE_MAX_DIM} parameters in this layout (the model has ${dim}); use the diagonal metric or the CPU backend`);
  }
  return [
    "#define DENSE_METRIC",
    "shared NREAL ppl_vec[D];",
    "#define GATHER(v) { FOR_OWNED(s_, i_) ppl_vec[i_] = v[s_]; barrier(); }",
    "#define GATHERED(v, j) ppl_vec[j]",
    "#define GATHER_DONE() barrier()",
  ];
}

import type { Metric } from "@ppl/ppl";
import type { MetricForm } from "./metric-source.ts";

/** Elements per chain of the metric buffer: the diagonal, or M⁻¹ and the momentum transform A = L⁻ᵀ. */
export function metricSize(form: MetricForm, dim: number): number {
  return form === "dense" ? 2 * dim * dim : dim;
}

/**
 * The contents of buffer 4 for every chain's metric (shaders/nuts/common.glsl). A dense chain's
 * transform is rebuilt only when adaptation has replaced its M⁻¹.
 */
export function metricBufferWriter<R extends Float32Array | Float64Array>(form: MetricForm, dim: number, values: R): (metrics: readonly Metric[]) => R {
  const size = metricSize(form, dim);
  const seen: Float64Array[] = [];
  return (metrics) => {
    metrics.forEach((m, c) => {
      if (form === "diag") values.set(m.inverse, c * dim);
      else if (!sameValues(seen[c], m.inverse)) {
        seen[c] = Float64Array.from(m.inverse);
        values.set(m.inverse, c * size);
        values.set(momentumTransform(m, dim), c * size + dim * dim);
      }
    });
    return values;
  };
}

function sameValues(a: Float64Array | undefined, b: Float64Array): boolean {
  return a !== undefined && a.length === b.length && a.every((v, i) => v === b[i]);
}
/** The matrix A with p = A·z of a dense metric, column by column from the metric's own transform. */
function momentumTransform(m: Metric, dim: number): Float64Array {
  const a = new Float64Array(dim * dim);
  const e = new Float64Array(dim), col = new Float64Array(dim);
  for (let j = 0; j < dim; j++) {
    e.fill(0);
    e[j] = 1;
    m.momentumFromNormals(e, col);
    for (let i = 0; i < dim; i++) a[i * dim + j] = col[i]!;
  }
  return a;
}

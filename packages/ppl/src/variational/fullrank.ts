import { standardEntropy, type GaussianFamily } from "./family.ts";

/** The index of L[i][j] (j ≤ i) among the parameters: μ first, then L's lower triangle row by row. */
const at = (dim: number, i: number, j: number): number => dim + (i * (i + 1)) / 2 + j;

/**
 * The fullrank family: N(μ, L Lᵀ) with L lower triangular, parameters [μ, L's lower triangle by
 * rows], as Stan's normal_fullrank (which starts from L = I and lets L's diagonal take any sign).
 * The ELBO gradient of L[i][j] is E[∂ log p / ∂ζ_i η_j], plus 1 / L[i][i] on the diagonal.
 */
export const fullrank: GaussianFamily = {
  name: "fullrank",
  size: (dim) => dim + (dim * (dim + 1)) / 2,
  init(x0) {
    const dim = x0.length;
    const p = new Float64Array(dim + (dim * (dim + 1)) / 2);
    p.set(x0);
    for (let i = 0; i < dim; i++) p[at(dim, i, i)] = 1;
    return p;
  },
  transform(params, dim, eta, out) {
    for (let i = 0; i < dim; i++) {
      let s = params[i]!;
      for (let j = 0; j <= i; j++) s += params[at(dim, i, j)]! * eta[j]!;
      out[i] = s;
    }
  },
  entropy(params, dim) {
    let s = standardEntropy(dim);
    for (let i = 0; i < dim; i++) s += Math.log(Math.abs(params[at(dim, i, i)]!));
    return s;
  },
  accumulate(dim, eta, g, acc) {
    for (let i = 0; i < dim; i++) {
      acc[i] = acc[i]! + g[i]!;
      for (let j = 0; j <= i; j++) acc[at(dim, i, j)] = acc[at(dim, i, j)]! + g[i]! * eta[j]!;
    }
  },
  finish(params, dim, acc, n) {
    for (let k = 0; k < acc.length; k++) acc[k] = acc[k]! / n;
    for (let i = 0; i < dim; i++) acc[at(dim, i, i)] = acc[at(dim, i, i)]! + 1 / params[at(dim, i, i)]!;
  },
  mean: (params, dim) => params.slice(0, dim),
};

/** The covariance L Lᵀ of fullrank parameters, row-major. */
export function fullrankCovariance(params: Float64Array, dim: number): Float64Array {
  const c = new Float64Array(dim * dim);
  for (let i = 0; i < dim; i++) {
    for (let j = 0; j < dim; j++) {
      let s = 0;
      for (let k = 0; k <= Math.min(i, j); k++) s += params[at(dim, i, k)]! * params[at(dim, j, k)]!;
      c[i * dim + j] = s;
    }
  }
  return c;
}

import { standardEntropy, type GaussianFamily } from "./family.ts";

/**
 * The meanfield family: N(μ, diag(exp(ω))²), parameters [μ, ω] (ω the log standard deviations),
 * as Stan's normal_meanfield. The ELBO gradient of ω_i is E[∂ log p / ∂ζ_i η_i] exp(ω_i) + 1.
 */
export const meanfield: GaussianFamily = {
  name: "meanfield",
  size: (dim) => 2 * dim,
  init(x0) {
    const p = new Float64Array(2 * x0.length);
    p.set(x0);
    return p;
  },
  transform(params, dim, eta, out) {
    for (let i = 0; i < dim; i++) out[i] = eta[i]! * Math.exp(params[dim + i]!) + params[i]!;
  },
  entropy(params, dim) {
    let s = standardEntropy(dim);
    for (let i = 0; i < dim; i++) s += params[dim + i]!;
    return s;
  },
  accumulate(dim, eta, g, acc) {
    for (let i = 0; i < dim; i++) {
      acc[i] = acc[i]! + g[i]!;
      acc[dim + i] = acc[dim + i]! + g[i]! * eta[i]!;
    }
  },
  finish(params, dim, acc, n) {
    for (let i = 0; i < dim; i++) {
      acc[i] = acc[i]! / n;
      acc[dim + i] = (acc[dim + i]! / n) * Math.exp(params[dim + i]!) + 1;
    }
  },
  mean: (params, dim) => params.slice(0, dim),
};

import type { Rng } from "../random/rng.ts";

/**
 * A Gaussian family on the unconstrained space, its parameters one flat vector (so that the
 * adaptive step-size sequence treats every element alike, as Stan's `+=`, `square` and `sqrt` of a
 * family do): a draw is ζ = transform(η) with η ~ N(0, I).
 */
export interface GaussianFamily {
  readonly name: FamilyName;
  /** The number of variational parameters for a dim-dimensional target. */
  size(dim: number): number;
  /** The family's starting point: mean x0, identity covariance (Stan's Q(cont_params)). */
  init(x0: Float64Array): Float64Array;
  /** ζ = μ + S η into `out`, S the family's scale (diag(exp ω) or L). */
  transform(params: Float64Array, dim: number, eta: Float64Array, out: Float64Array): void;
  /** The entropy of the normal the parameters describe. */
  entropy(params: Float64Array, dim: number): number;
  /** Adds one draw's term of the ELBO gradient: ∇ log p(ζ) at ζ = transform(η), into `acc` (size(dim) long). */
  accumulate(dim: number, eta: Float64Array, gradLogP: Float64Array, acc: Float64Array): void;
  /** Turns the sum of `n` draws' terms into the ELBO gradient: the average, the chain rule of the scale's parametrization, the entropy's gradient. */
  finish(params: Float64Array, dim: number, acc: Float64Array, n: number): void;
  /** The mean of the approximation. */
  mean(params: Float64Array, dim: number): Float64Array;
}

/** The variational families: meanfield (diagonal covariance) and fullrank (dense, by its Cholesky factor). */
export type FamilyName = "meanfield" | "fullrank";

/** ½ d (1 + log 2π): the entropy of N(0, I_d). */
export function standardEntropy(dim: number): number {
  return 0.5 * dim * (1 + Math.log(2 * Math.PI));
}

/** η ~ N(0, I) into `eta`, returning −½ ηᵀη (Stan's log_g__: the log density before the transform, without its constant). */
export function standardNormal(rng: Rng, eta: Float64Array): number {
  let ss = 0;
  for (let i = 0; i < eta.length; i++) {
    eta[i] = rng.normal();
    ss += eta[i]! ** 2;
  }
  return -0.5 * ss;
}

/** Log density and gradient for C chains at once, on the unconstrained scale. */
export interface BatchedDensity {
  readonly dim: number;
  /** q: C*dim (row per chain); writes lp[C] and grad[C*dim]; `active` (length C, optional) marks which chains need evaluating — others may be skipped. */
  logpGrad(q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array): void;
}

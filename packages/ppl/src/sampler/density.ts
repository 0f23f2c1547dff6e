import type { ChainBatch } from "./batch.ts";
import type { Trajectory } from "./trajectory.ts";

/** Log density and gradient for C chains at once, on the unconstrained scale. */
export interface BatchedDensity {
  readonly dim: number;
  /** q: C*dim (row per chain); writes lp[C] and grad[C*dim]; `active` (length C, optional) marks which chains need evaluating — others may be skipped. */
  logpGrad(q: Float64Array, lp: Float64Array, grad: Float64Array, active?: Uint8Array): void;
  /**
   * Optional: runs the leapfrog trajectory of every chain of the batch at once (trajectories[c] is
   * row c's), leaving what trajectory.ts's leapfrogsByRounds leaves (each chain's row at its end,
   * its momentum, its steps taken, its gradients counted in batch.evaluations); a GPU's runs all
   * steps in one submission. Without it, the driver takes them by rounds of logpGrad.
   */
  leapfrogs?(batch: ChainBatch, trajectories: readonly Trajectory[]): void;
}

/**
 * What every MCMC transition machine (NUTS, static HMC) exposes: it is started
 * for one iteration and then fed gradients through {@link GradientStepper}.
 */

import type { GradientStepper } from "./batch.ts";

/** Per-transition sampler statistics, Stan's `__` columns (lp__ and stepsize__ come from the driver). */
export interface TransitionStats {
  /** Stan's accept_stat__. */
  readonly acceptStat: number;
  readonly treeDepth: number;
  readonly nLeapfrog: number;
  readonly divergent: boolean;
  /** Hamiltonian of the selected state, Stan's energy__. */
  readonly energy: number;
}

/** A per-chain transition kernel driven one gradient at a time. */
export interface Transition extends GradientStepper, TransitionStats {
  /**
   * Starts the transition of global iteration `iteration` from the chain's
   * current row (q, lp, grad) with step size eps; returns true when it needs
   * a gradient (false: already finished, the row holds the result).
   */
  begin(iteration: number, eps: number): boolean;
}

/** Where a chain lives: its row in the batch and its id in the random streams. */
export interface ChainSlot {
  /** Row index in the batch (0-based). */
  readonly row: number;
  /** Chain id used in the Philox counter (row + the run's first chain id). */
  readonly id: number;
}

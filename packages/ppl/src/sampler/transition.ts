/**
 * What every MCMC transition machine (NUTS, static HMC) exposes: it is started
 * for one iteration and then fed gradients through {@link GradientStepper}; and
 * the chain context that they and the step-size search share.
 */

import type { ChainBatch, GradientStepper } from "./batch.ts";
import type { Metric } from "./metric.ts";
import { streamNormals, type Purpose, type SeedKey } from "../random/streams.ts";

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

/**
 * What a chain's machines (NUTS, static HMC, the step-size search) read and never replace: its
 * rows of the batch, its random stream and its metric (adapted in place between transitions).
 */
export interface ChainContext extends ChainSlot {
  readonly batch: ChainBatch;
  readonly key: SeedKey;
  readonly metric: Metric;
  /** The chain's row of the batch's positions: where a machine asks for the next gradient. */
  readonly q: Float64Array;
  /** The chain's row of the batch's gradients, filled in place by every batched evaluation. */
  readonly grad: Float64Array;
}

/** The context of the chain at `slot` of `batch`, made once per chain and shared by its machines. */
export function chainContext(batch: ChainBatch, slot: ChainSlot, key: SeedKey, metric: Metric): ChainContext {
  return { batch, row: slot.row, id: slot.id, key, metric, q: batch.qRows[slot.row]!, grad: batch.gradRows[slot.row]! };
}

/**
 * A fresh momentum p ~ N(0, M) from block `sub` of the chain's `purpose` stream at `iteration`;
 * normals is scratch of length dim (kept by the caller, so that no step allocates).
 */
export function drawMomentum(chain: ChainContext, iteration: number, purpose: Purpose, sub: number, normals: Float64Array, p: Float64Array): void {
  streamNormals(chain.key, chain.id, iteration, purpose, sub, normals);
  chain.metric.momentumFromNormals(normals, p);
}

/** A copy of a chain's row (q, grad, lp), to return to after trial steps. */
export interface RowCopy {
  readonly q: Float64Array;
  readonly grad: Float64Array;
  lp: number;
}

/** Storage for one copy of a chain's row. */
export function rowCopy(dim: number): RowCopy {
  return { q: new Float64Array(dim), grad: new Float64Array(dim), lp: 0 };
}

/**
 * Storage of a machine that integrates from a saved start with fresh momenta (static HMC, the
 * step-size search): the momentum, the velocity M⁻¹p, the standard normals of a draw, the start.
 */
export interface TrialStorage {
  readonly p: Float64Array;
  readonly vel: Float64Array;
  readonly normals: Float64Array;
  readonly start: RowCopy;
}

/** Trial storage for dimension dim, allocated once per chain. */
export function trialStorage(dim: number): TrialStorage {
  return { p: new Float64Array(dim), vel: new Float64Array(dim), normals: new Float64Array(dim), start: rowCopy(dim) };
}

/** Copies the chain's row (q, grad, lp) into `to`. */
export function saveRow(chain: ChainContext, to: RowCopy): void {
  copyRow(chain.q, to.q);
  copyRow(chain.grad, to.grad);
  to.lp = chain.batch.lp[chain.row]!;
}

/** Writes a saved copy back into the chain's row. */
export function restoreRow(chain: ChainContext, from: RowCopy): void {
  copyRow(from.q, chain.q);
  copyRow(from.grad, chain.grad);
  chain.batch.lp[chain.row] = from.lp;
}

/** Copies a row into another of the same length: an element loop, since TypedArray.set's call costs more than copying a short row (every chain, every iteration). */
export function copyRow(from: Float64Array, to: Float64Array): void {
  for (let i = 0; i < from.length; i++) to[i] = from[i]!;
}

/** A ChEES chain's state, read by the method (chees.ts) and by the run's adaptation (chees-adaptation.ts). */
import type { MomentumDraw, Trajectory } from "../trajectory.ts";
import type { ChainContext, RowCopy } from "./layer.ts";

/** How an iteration's trajectory length is jittered. */
export type CheesJitter = "halton" | "uniform";

/**
 * Every chain's rows of a batch in one array a quantity (row c is the chain of batch row c's), so
 * that an iteration's loops over the chains copy whole arrays (a device copies the momenta in one
 * piece) and the adaptation reads them in order. Each chain's state holds views of its rows.
 */
export interface CheesRows {
  readonly chains: number;
  readonly dim: number;
  /** The momenta and their velocities M⁻¹p. */
  readonly p: Float64Array;
  readonly vel: Float64Array;
  /** The momenta drawn as the trajectories started (whoever runs them draws them: MomentumDraw). */
  readonly initialP: Float64Array;
  /** The points the transitions started from: q, ∇ and lp. */
  readonly startQ: Float64Array;
  readonly startGrad: Float64Array;
  readonly startLp: Float64Array;
  /** The proposals before the Metropolis test, and their velocities (the criterion's gradient reads them). */
  readonly proposal: Float64Array;
  readonly proposalVelocity: Float64Array;
  /** Scratch: 1 where the chain's Metropolis test returned it to its start. */
  readonly rejected: Uint8Array;
}

/** Rows for C chains of dimension D, zeroed. */
export function cheesRows(chains: number, dim: number): CheesRows {
  const rows = (): Float64Array => new Float64Array(chains * dim);
  return {
    chains, dim, p: rows(), vel: rows(), initialP: rows(), startQ: rows(), startGrad: rows(), startLp: new Float64Array(chains),
    proposal: rows(), proposalVelocity: rows(), rejected: new Uint8Array(chains),
  };
}

/** One ChEES chain's state: views of its rows, the run's shared T, and what the last transition saw. */
export interface CheesState {
  readonly chain: ChainContext;
  readonly rows: CheesRows;
  readonly jitterKind: CheesJitter;
  readonly maxSteps: number;
  readonly maxDeltaH: number;
  /** The run's trajectory length, written by the run's adaptation. */
  trajectoryLength: number;
  readonly p: Float64Array;
  readonly vel: Float64Array;
  /** The iteration's trajectory over p and vel, stopped at a point outside the support, and its momentum's draw (the trajectory's runner draws it). */
  readonly trajectory: Trajectory;
  readonly draw: MomentumDraw;
  /** The point the transition started from (the ChEES criterion's initial position). */
  readonly start: RowCopy;
  /** The proposal before the Metropolis test, and its velocity M⁻¹p (the criterion's gradient reads them). */
  readonly proposal: Float64Array;
  readonly proposalVelocity: Float64Array;
  iteration: number;
  stepSize: number;
  steps: number;
  stepsDone: number;
  /** The iteration's jitter h. */
  jitter: number;
  h0: number;
  acceptStat: number;
  divergent: boolean;
  energy: number;
}

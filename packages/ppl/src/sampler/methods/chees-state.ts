/** A ChEES chain's state, read by the method (chees.ts) and by the run's adaptation (chees-adaptation.ts). */
import type { Trajectory } from "../trajectory.ts";
import type { ChainContext, RowCopy } from "./layer.ts";

/** How an iteration's trajectory length is jittered. */
export type CheesJitter = "halton" | "uniform";

/** One chain's ChEES state: its trajectory's storage, the run's shared T, and what the last transition saw. */
export interface CheesState {
  readonly chain: ChainContext;
  readonly jitterKind: CheesJitter;
  readonly maxSteps: number;
  readonly maxDeltaH: number;
  /** The run's trajectory length, written by the run's adaptation. */
  trajectoryLength: number;
  readonly p: Float64Array;
  readonly vel: Float64Array;
  readonly normals: Float64Array;
  /** The iteration's trajectory over p and vel, stopped at a point outside the support. */
  readonly trajectory: Trajectory;
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


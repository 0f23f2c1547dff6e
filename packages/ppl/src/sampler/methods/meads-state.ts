/** A MEADS chain's state, read by the method (meads.ts) and by the run's adaptation (meads-adaptation.ts). */
import type { ChainContext, RowCopy } from "./layer.ts";

/** One chain's generalized-HMC state: the persistent momentum and slice value, its fold's parameters, what the last transition saw. */
export interface MeadsState {
  readonly chain: ChainContext;
  readonly maxDeltaH: number;
  /** The momentum, kept from one transition to the next (partly refreshed by α). */
  readonly p: Float64Array;
  /** The momentum at the transition's start, negated on a rejection. */
  readonly p0: Float64Array;
  readonly vel: Float64Array;
  readonly normals: Float64Array;
  readonly start: RowCopy;
  /** Whether p holds a momentum yet (the first transition draws it whole). */
  hasMomentum: boolean;
  /** Neal's non-reversible slice value in [−1, 1): the Metropolis test accepts when |u| < exp(−ΔH). */
  u: number;
  /** The momentum's refresh share α ∈ (0, 1] and the slice drift δ = α/2, set by the adaptation. */
  alpha: number;
  delta: number;
  /** Leapfrog steps of a transition: one (MEADS), more while the chains travel in (meads-travel-in.ts). */
  travelSteps: number;
  /** True for the chains of the fold that stays put this iteration (warmup's cross-fold rule). */
  frozen: boolean;
  iteration: number;
  stepSize: number;
  h0: number;
  acceptStat: number;
  divergent: boolean;
  energy: number;
  steps: number;
}

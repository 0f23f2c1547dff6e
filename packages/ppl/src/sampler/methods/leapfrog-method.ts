/**
 * A method whose transition is a fixed-length leapfrog trajectory (static HMC, ChEES), written
 * once as start and finish around the trajectory (LeapfrogTransition): its begin/advance, which a
 * driver going gradient by gradient calls, are derived here from the same trajectory steps
 * (trajectory.ts) that a driver running whole trajectories hands to the density.
 */
import { trajectoryAdvance, trajectoryBegin } from "../trajectory.ts";
import type { LeapfrogTransition, SamplingMethod } from "./method.ts";

/** A method given everything but begin/advance, and its transition as start, trajectory, finish. */
export type LeapfrogMethodParts<S> = Omit<SamplingMethod<S>, "begin" | "advance" | "leapfrogs"> & { readonly leapfrogs: LeapfrogTransition<S> };

/** The method whose begin/advance run its trajectory a gradient at a time. */
export function leapfrogMethod<S>(parts: LeapfrogMethodParts<S>): SamplingMethod<S> {
  const { leapfrogs } = parts;
  return {
    ...parts,
    begin(state, iteration, stepSize) {
      if (trajectoryBegin(leapfrogs.start(state, iteration, stepSize))) return true;
      leapfrogs.finish(state);
      return false;
    },
    advance(state) {
      if (trajectoryAdvance(leapfrogs.trajectory(state))) return true;
      leapfrogs.finish(state);
      return false;
    },
  };
}

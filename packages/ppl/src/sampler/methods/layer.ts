/**
 * The inference layer's surface for writing a method: the method and adaptation interfaces, the
 * chain context a method works in, and the tools a transition is built from (its random stream,
 * momentum draws, copies of the chain's row). A method written against this file alone runs in
 * every CPU driver: the calling thread, worker threads (when it is one of methods/builtin.ts),
 * and through step.ts one chain at a time.
 */
export type { SamplingMethod, AdaptationMethod, RunAdaptationMethod, MethodSettings } from "./method.ts";
export type { ChainContext, ChainSlot, TransitionStats, RowCopy } from "../transition.ts";
export { copyRow, drawMomentum, rowCopy, saveRow, restoreRow } from "../transition.ts";
export { Purpose, streamUniform } from "../../random/streams.ts";
// A method whose transition is a fixed-length leapfrog trajectory writes start and finish around it
// (leapfrogMethod derives begin/advance); a driver then hands whole trajectories to the density.
export type { LeapfrogTransition } from "./method.ts";
export { leapfrogMethod, type LeapfrogMethodParts } from "./leapfrog-method.ts";
export { trajectory, type Trajectory } from "../trajectory.ts";

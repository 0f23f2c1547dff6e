// @ppl/ppl/inference: the inference layer. A sampling method is pure functions over one chain's
// explicit state (init, then begin/advance a transition around the gradients it asks for, info)
// with its warmup as an AdaptationMethod; the shipped methods (NUTS, static HMC, random-walk
// Metropolis), one chain stepped by hand, and what a new method is written from. A run takes a
// method through SampleOptions.method, by name in any thread or as itself in the calling thread.
export {
  builtinMethods, methodOf, nuts, staticHmc, randomWalk, windowedAdaptation, oneChain, stepOnce,
  type SamplingMethod, type AdaptationMethod, type MethodSettings, type RandomWalkState, type WindowedState,
} from "./sampler/methods/index.ts";
// ChEES-HMC: many chains in lockstep with one step size and trajectory length adapted across
// chains (a RunAdaptationMethod: warmup over every chain of a run at once).
export {
  chees, cheesUniform, cheesMethod, cheesAdaptation, cheesGradient, cheesJitter, halton, CHEES_TARGET_ACCEPT,
  type RunAdaptationMethod, type CheesState, type CheesJitter, type CheesAdaptationState,
} from "./sampler/methods/index.ts";
// MEADS: generalized HMC with a persistent momentum, its step size, metric and damping adapted
// per fold of chains from the other folds (a RunAdaptationMethod).
export { meads, meadsAdaptation, maxEigenvalue, MEADS_FOLDS, type MeadsState, type MeadsAdaptationState } from "./sampler/methods/index.ts";
// Whole leapfrog trajectories: a method whose n steps are fixed before it starts (static HMC, ChEES)
// hands them to the density at once (LeapfrogDensity.leapfrogs); the CPU takes them by rounds of the
// batched gradient, a GPU renders the halves' IR graphs n times between its gradient's kernels.
export { leapfrogMethod, type LeapfrogMethodParts } from "./sampler/methods/leapfrog-method.ts";
export type { LeapfrogTransition } from "./sampler/methods/method.ts";
export { trajectory, trajectoryBegin, trajectoryAdvance, drawTrajectoryMomentum, leapfrogsByRounds, runLeapfrogs, momentumRowsOf, type Trajectory, type MomentumDraw, type LeapfrogDensity } from "./sampler/trajectory.ts";
export { leapfrogGraphs, momentumDrawGraphs, LEAPFROG_STATE, type LeapfrogGraphs, type LeapfrogStateField } from "./sampler/leapfrog-graph.ts";
export {
  drawMomentum, rowCopy, saveRow, restoreRow, Purpose, streamUniform,
  type ChainContext, type ChainSlot, type TransitionStats, type RowCopy,
} from "./sampler/methods/layer.ts";
// Optimization (L-BFGS, BFGS, Newton with a strong Wolfe line search) and the Laplace
// approximation at a mode, as pure functions over explicit state.
export * from "./optimize/index.ts";
// ADVI (meanfield and fullrank Gaussians fitted by stochastic gradient ascent on the ELBO), as
// Stan's variational method.
export * from "./variational/index.ts";
// Pathfinder (single- and multi-path, PSIS importance resampling), as Stan's pathfinder.
export * from "./pathfinder/index.ts";

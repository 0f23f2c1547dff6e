// The inference layer: a method is pure functions over one chain's explicit state (method.ts);
// the shipped ones by name (builtin.ts); one chain stepped by hand (step.ts). Drivers (../drivers,
// ../threads) run any method over many chains.
export type { SamplingMethod, AdaptationMethod, RunAdaptationMethod, MethodSettings } from "./method.ts";
export { builtinMethods, methodOf } from "./builtin.ts";
export { nuts } from "./nuts.ts";
export { staticHmc } from "./static-hmc.ts";
export { randomWalk, type RandomWalkState } from "./random-walk.ts";
export { windowedAdaptation, type WindowedState } from "./windowed-adaptation.ts";
export { oneChain, stepOnce } from "./step.ts";
export { chees, cheesUniform, cheesMethod, halton, cheesJitter } from "./chees.ts";
export type { CheesState, CheesJitter } from "./chees-state.ts";
export { cheesAdaptation, cheesGradient, CHEES_TARGET_ACCEPT, type CheesAdaptationState } from "./chees-adaptation.ts";
export { meads } from "./meads.ts";
export type { MeadsState } from "./meads-state.ts";
export { meadsAdaptation, maxEigenvalue, MEADS_FOLDS, type MeadsAdaptationState } from "./meads-adaptation.ts";

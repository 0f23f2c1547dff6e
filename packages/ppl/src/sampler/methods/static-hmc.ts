/** Static HMC as a sampling method: the existing transition (../hmc.ts) over its own state, unchanged. */
import { HmcTransition } from "../hmc.ts";
import type { SamplingMethod } from "./method.ts";
import { windowedAdaptation } from "./windowed-adaptation.ts";

/** Static HMC (hmcSteps leapfrog steps, then a Metropolis test) and Stan's windowed warmup. */
export const staticHmc: SamplingMethod<HmcTransition> = {
  name: "hmc",
  adaptation: windowedAdaptation,
  init: (chain, s) => new HmcTransition(chain, { steps: s.hmcSteps, maxDeltaH: s.maxDeltaH }),
  begin: (t, iteration, stepSize) => t.begin(iteration, stepSize),
  advance: (t) => t.advance(),
  info: (t) => t,
};

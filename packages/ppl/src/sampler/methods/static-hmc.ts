/** Static HMC as a sampling method: the existing transition (../hmc.ts) over its own state, unchanged. */
import { HmcTransition } from "../hmc.ts";
import { leapfrogMethod } from "./leapfrog-method.ts";
import type { SamplingMethod } from "./method.ts";
import { windowedAdaptation } from "./windowed-adaptation.ts";

/** Static HMC (hmcSteps leapfrog steps, then a Metropolis test) and Stan's windowed warmup. */
export const staticHmc: SamplingMethod<HmcTransition> = leapfrogMethod({
  name: "hmc",
  adaptation: windowedAdaptation,
  init: (chain, s) => new HmcTransition(chain, { steps: s.hmcSteps, maxDeltaH: s.maxDeltaH }),
  leapfrogs: { start: (t, iteration, stepSize) => t.start(iteration, stepSize), trajectory: (t) => t.trajectory, finish: (t) => t.finish() },
  info: (t) => t,
});

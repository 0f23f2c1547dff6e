/** NUTS as a sampling method: the existing transition (../nuts.ts) over its own state, unchanged. */
import { NutsTransition } from "../nuts.ts";
import type { SamplingMethod } from "./method.ts";
import { windowedAdaptation } from "./windowed-adaptation.ts";

/** Stan's NUTS (multinomial, with its maxDepth and maxDeltaH) and Stan's windowed warmup. */
export const nuts: SamplingMethod<NutsTransition> = {
  name: "nuts",
  adaptation: windowedAdaptation,
  init: (chain, s) => new NutsTransition(chain, { maxDepth: s.maxDepth, maxDeltaH: s.maxDeltaH }),
  begin: (t, iteration, stepSize) => t.begin(iteration, stepSize),
  advance: (t) => t.advance(),
  info: (t) => t,
};

/**
 * Stan's warmup as an AdaptationMethod: dual averaging of the step size towards adaptDelta, and
 * the metric estimated in Stan's windows (warmup/adaptation.ts, wrapped as it is).
 */
import type { Metric } from "../metric.ts";
import type { ChainSlot, TransitionStats } from "../transition.ts";
import { ChainAdaptation } from "../warmup/adaptation.ts";
import { defaultDualAveraging, type DualAveragingSettings } from "../warmup/dual-averaging.ts";
import { defaultWindows } from "../warmup/windows.ts";
import type { AdaptationMethod, MethodSettings } from "./method.ts";

/** A chain's windowed adaptation and the step size its last update gave. */
export interface WindowedState {
  readonly chain: ChainAdaptation;
  stepSize: number;
}

/** The dual-averaging settings of a run: Stan's, with its target accept statistic. */
export function dualAveragingOf(settings: MethodSettings): DualAveragingSettings {
  return { ...defaultDualAveraging, delta: settings.adaptDelta };
}

/** Stan's windowed adaptation (step size and metric), the warmup of NUTS and static HMC. */
export const windowedAdaptation: AdaptationMethod<WindowedState> = {
  init(chain: ChainSlot, metric: Metric, s: MethodSettings): WindowedState {
    return { chain: new ChainAdaptation(chain.id, metric, s.warmup, s.stepSize, dualAveragingOf(s), defaultWindows), stepSize: s.stepSize };
  },
  update(a: WindowedState, info: TransitionStats, q: Float64Array): boolean {
    a.stepSize = a.chain.learnStepSize(info.acceptStat);
    return a.chain.learnMetric(q);
  },
  stepSize: (a) => a.stepSize,
  restart(a, stepSize) {
    a.chain.restartStepSize(stepSize);
  },
  reinitialise(a) {
    a.chain.restart();
  },
  final: (a) => a.chain.finalStepSize(),
  save: (a) => a.chain.state(),
  restore(a, saved) {
    a.chain.restore(saved);
  },
  dualAveraging: (a) => a.chain.dualAveraging.snapshot(),
};

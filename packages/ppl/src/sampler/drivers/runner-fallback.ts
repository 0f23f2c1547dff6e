/**
 * The measured-cost fallback of a run on a transition runner, as the drivers apply it: the run's
 * runner is timed over the iterations fallbackIteration names, the CPU sampler's trial from a copy
 * of where the chains stand, and when the CPU wins the chains move to it (fallback.ts decides).
 */
import { decideFallback, fallbackIteration, trialSecondsPerGradient } from "../fallback.ts";
import type { SampleOptions } from "../options.ts";
import type { FallbackDecision, SampleResult } from "../result.ts";
import { detached, reevaluated, type RunState } from "../run-state.ts";
import { SamplingRun } from "../sampling-run.ts";
import type { RunnerCost } from "../transition-runner.ts";

/** Watches a run on a runner for its fallback point; the drivers call `check` after every iteration. */
export class FallbackWatch {
  /** What was measured, once decided. */
  decision: FallbackDecision | undefined;
  private readonly options: SampleOptions;
  private readonly point: { readonly from: number; readonly at: number } | null;
  private base: RunnerCost = { seconds: 0, gradients: 0 };

  constructor(run: SamplingRun, options: SampleOptions) {
    this.options = options;
    this.point = fallbackPoint(run, options);
  }

  /** After an iteration of `run`: where its chains stand when they move to the CPU now, else null. */
  check(run: SamplingRun): RunState | null {
    const point = this.point;
    if (point === null) return null;
    if (run.iterationsDone === point.from) this.base = run.runnerCost;
    if (run.iterationsDone !== point.at) return null;
    const moved = fallBack(run, this.options, this.base);
    this.decision = moved.decision;
    return moved.state ?? null;
  }

  /** The result with the decision, when one was made. */
  withDecision(result: SampleResult): SampleResult {
    return this.decision ? { ...result, fallback: this.decision } : result;
  }
}

/** The run's options for the CPU sampler that takes over: no runner, no second fallback. */
export function cpuOptions(options: SampleOptions): SampleOptions {
  const { transitionRunner: _runner, fallback: _fallback, ...rest } = options;
  return rest;
}

// Where a run with a runner and options.fallback measures and decides, or null.
function fallbackPoint(run: SamplingRun, options: SampleOptions): { readonly from: number; readonly at: number } | null {
  if (!options.fallback || !options.transitionRunner) return null;
  const s = run.settings;
  const point = fallbackIteration(options.fallback, s.warmup, s.draws, run.hostSteps);
  return point.at > 0 && point.at < s.warmup + s.draws ? point : null;
}

// Decides at the fallback point; hands the chains over (lp and gradient evaluated again on the CPU density) when they move.
// `base` is the runner's cost when the measured iterations began.
function fallBack(run: SamplingRun, options: SampleOptions, base: RunnerCost): { decision: FallbackDecision; state?: RunState } {
  const fallback = options.fallback!;
  const chains = run.settings.chains;
  const cost = run.runnerCost;
  const measured = { iteration: run.iterationsDone, runnerSeconds: cost.seconds - base.seconds, gradients: cost.gradients - base.gradients };
  let decision = decideFallback(fallback, chains, measured, (seconds) => {
    // A trial of the CPU sampler from a copy of where the chains stand; its draws are thrown away.
    const copy = reevaluated(detached(run.handOver(0, chains)), fallback.density);
    const trial = new SamplingRun(fallback.density, { ...cpuOptions(options), onDraw: undefined, onAdapted: undefined, signal: undefined, threads: 1 });
    trial.restore(copy);
    return trialSecondsPerGradient(() => {
      if (trial.done) return null;
      const before = trial.evaluationsDone;
      trial.step();
      return trial.evaluationsDone - before;
    }, seconds);
  });
  let state: RunState | undefined;
  if (decision.switched) {
    const moved = reevaluated(run.handOver(0, chains), fallback.density);
    // A point the CPU density cannot evaluate (its float type differs) stays where it is.
    if (moved.chains.every((ch) => Number.isFinite(ch.lp))) state = moved;
    else decision = { ...decision, switched: false };
  }
  fallback.onDecision?.(decision);
  return state ? { decision, state } : { decision };
}

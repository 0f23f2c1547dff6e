/**
 * One chain's warmup bookkeeping, in the order of Stan's adapt_*_nuts
 * transition: learn the step size from accept_stat, feed the draw to the
 * metric estimator inside slow windows, and at a window's end replace the
 * metric by the regularized estimate. The caller then re-runs the step-size
 * search and calls {@link ChainAdaptation.restartStepSize}.
 */

import { AdaptationError } from "../errors.ts";
import type { Metric } from "../metric.ts";
import { DualAveraging, type DualAveragingSettings, type DualAveragingState } from "./dual-averaging.ts";
import { regularize, WelfordDense, WelfordDiag, type WelfordState } from "./welford.ts";
import { WindowSchedule, type WindowSettings, type WindowState } from "./windows.ts";

/** One chain's adaptation state between iterations (the metric itself is the run's). */
export interface ChainAdaptationState {
  readonly dualAveraging: DualAveragingState;
  readonly windows: WindowState;
  readonly welford: WelfordState;
}

/** Step size and metric adaptation state of one chain. */
export class ChainAdaptation {
  readonly dualAveraging: DualAveraging;
  readonly windows: WindowSchedule;
  private readonly chainId: number;
  private readonly metric: Metric;
  private readonly diag: WelfordDiag | null;
  private readonly dense: WelfordDense | null;
  private readonly estimate: Float64Array;
  // The metric the chain started with (unit, or the user's), what a restart returns to.
  private readonly initialInverse: Float64Array;

  constructor(
    chainId: number,
    metric: Metric,
    numWarmup: number,
    initialStepSize: number,
    dualAveraging: DualAveragingSettings,
    windows: WindowSettings,
  ) {
    this.chainId = chainId;
    this.metric = metric;
    // Stan sets μ = log(10·ε) from the user's initial step size, before the first search.
    this.dualAveraging = new DualAveraging(Math.log(10 * initialStepSize), dualAveraging);
    this.windows = new WindowSchedule(numWarmup, windows);
    this.diag = metric.kind === "diag" ? new WelfordDiag(metric.dim) : null;
    this.dense = metric.kind === "dense" ? new WelfordDense(metric.dim) : null;
    this.estimate = new Float64Array(metric.inverse.length);
    this.initialInverse = Float64Array.from(metric.inverse);
  }

  /**
   * Forgets what the chain learned, for a chain re-initialised from a fresh point at a window's end
   * (a stuck chain, stuck-chains.ts): the metric it started with, no draws towards the next
   * estimate, and a fresh dual-averaging history. The window schedule goes on with the run's, so
   * that every chain's metric updates stay at the same iterations (where a runner's warmup blocks
   * end); the caller then searches a step size from the new point and calls restartStepSize.
   */
  restart(): void {
    this.metric.set(this.initialInverse);
    if (this.diag) this.diag.reset();
    else this.dense!.reset();
    this.dualAveraging.restart();
  }

  /** Step size for the next iteration from this iteration's accept_stat. */
  learnStepSize(acceptStat: number): number {
    return this.dualAveraging.learn(acceptStat);
  }

  /** Feeds the draw q; returns true when a window closed and the metric was replaced. */
  learnMetric(q: Float64Array): boolean {
    const w = this.windows;
    if (w.inWindow()) {
      if (this.diag) this.diag.add(q);
      else this.dense!.add(q);
    }
    if (!w.atWindowEnd()) {
      w.advance();
      return false;
    }
    w.computeNextWindow();
    const n = this.diag ? this.diag.count : this.dense!.count;
    if (this.diag) this.diag.variance(this.estimate);
    else this.dense!.covariance(this.estimate);
    regularize(this.estimate, n, this.metric.dim, this.dense !== null);
    if (!this.metric.trySet(this.estimate)) {
      throw new AdaptationError(
        this.chainId,
        "numerical overflow in metric adaptation: the estimated (co)variance is not finite and positive definite; check the model's scaling",
      );
    }
    if (this.diag) this.diag.reset();
    else this.dense!.reset();
    w.advance();
    return true;
  }

  /** After the post-window step-size search: μ = log(10·ε) and a fresh dual-averaging history. */
  restartStepSize(stepSize: number): void {
    this.dualAveraging.mu = Math.log(10 * stepSize);
    this.dualAveraging.restart();
  }

  /** A copy of the state, to continue the adaptation elsewhere (another thread). */
  state(): ChainAdaptationState {
    return { dualAveraging: this.dualAveraging.snapshot(), windows: this.windows.state(), welford: (this.diag ?? this.dense!).state() };
  }

  /** Continues from a state that state() gave (of an adaptation with the same settings). */
  restore(s: ChainAdaptationState): void {
    this.dualAveraging.restore(s.dualAveraging);
    this.windows.restore(s.windows);
    (this.diag ?? this.dense!).restore(s.welford);
  }

  /** The step size to sample with: exp(x̄). */
  finalStepSize(): number {
    return this.dualAveraging.finalStepSize();
  }
}

/**
 * Stan's init_stepsize heuristic (base_hmc.hpp) as a per-chain machine: one
 * leapfrog step from the current point with a fresh momentum; the first trial
 * fixes the direction (double ε while ΔH > log 0.8, else halve), then trials
 * repeat — the first of them at the same ε, as Stan does — until the
 * comparison flips. Trial j draws its momentum from the StepSize stream,
 * sub = j, at the iteration the search precedes.
 */

import type { GradientStepper } from "../batch.ts";
import { StepSizeError } from "../errors.ts";
import { hamiltonian, leapfrogBegin, leapfrogEnd } from "../integrator.ts";
import { drawMomentum, restoreRow, saveRow, trialStorage, type ChainContext, type TrialStorage } from "../transition.ts";
import { Purpose } from "../../random/streams.ts";

const LOG_08 = Math.log(0.8);

/** One chain's step-size search. */
export class StepSizeSearch implements GradientStepper {
  /** The step size found (valid once the search has finished). */
  stepSize = 1;

  private readonly chain: ChainContext;
  private readonly storage: TrialStorage;
  private iteration = 0;
  private trial = 0;
  private direction = 0;
  private H0 = 0;

  constructor(chain: ChainContext) {
    this.chain = chain;
    this.storage = trialStorage(chain.q.length);
  }

  /** Starts from step size eps at the chain's row; returns true when it needs a gradient. */
  begin(iteration: number, eps: number): boolean {
    this.stepSize = eps;
    // Stan skips the search for extreme step sizes that could loop forever.
    if (eps === 0 || eps > 1e7 || Number.isNaN(eps)) return false;
    this.iteration = iteration;
    this.trial = 0;
    saveRow(this.chain, this.storage.start);
    this.startTrial();
    return true;
  }

  /** Judges one trial step and either finishes or starts the next trial. */
  advance(): boolean {
    const { chain } = this;
    const { p, vel, start } = this.storage;
    leapfrogEnd(p, chain.grad, this.stepSize);
    const h = hamiltonian(chain.batch.lp[chain.row]!, chain.grad, p, chain.metric, vel);
    const deltaH = this.H0 - h;
    if (this.trial === 0) {
      this.direction = deltaH > LOG_08 ? 1 : -1;
    } else {
      const done = this.direction === 1 ? !(deltaH > LOG_08) : !(deltaH < LOG_08);
      if (done) {
        restoreRow(chain, start);
        return false;
      }
      this.stepSize = this.direction === 1 ? 2 * this.stepSize : 0.5 * this.stepSize;
      if (this.stepSize > 1e7) {
        restoreRow(chain, start);
        throw new StepSizeError(chain.id, "the step size grew past 1e7 in the step-size search; the posterior may be improper — check the model");
      }
      if (this.stepSize === 0) {
        restoreRow(chain, start);
        throw new StepSizeError(chain.id, "no acceptably small step size was found; the posterior may not be continuous — check the model");
      }
    }
    this.trial++;
    restoreRow(chain, start);
    this.startTrial();
    return true;
  }

  /** Fresh momentum at the start point, then the first half of one leapfrog step. */
  private startTrial(): void {
    const { chain } = this;
    const { p, vel, normals, start } = this.storage;
    drawMomentum(chain, this.iteration, Purpose.StepSize, this.trial, normals, p);
    this.H0 = hamiltonian(start.lp, start.grad, p, chain.metric, vel);
    leapfrogBegin(chain.q, p, chain.grad, this.stepSize, chain.metric, vel);
  }
}

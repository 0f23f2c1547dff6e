/**
 * Stan's init_stepsize heuristic (base_hmc.hpp) as a per-chain machine: one
 * leapfrog step from the current point with a fresh momentum; the first trial
 * fixes the direction (double ε while ΔH > log 0.8, else halve), then trials
 * repeat — the first of them at the same ε, as Stan does — until the
 * comparison flips. Trial j draws its momentum from the StepSize stream,
 * sub = j, at the iteration the search precedes.
 */

import type { ChainBatch, GradientStepper } from "../batch.ts";
import { StepSizeError } from "../errors.ts";
import { hamiltonian, leapfrogBegin, leapfrogEnd } from "../integrator.ts";
import type { Metric } from "../metric.ts";
import type { ChainSlot } from "../transition.ts";
import { Purpose, streamNormals, type SeedKey } from "../../random/streams.ts";

const LOG_08 = Math.log(0.8);

/** One chain's step-size search. */
export class StepSizeSearch implements GradientStepper {
  /** The step size found (valid once the search has finished). */
  stepSize = 1;

  private readonly batch: ChainBatch;
  private readonly row: number;
  private readonly id: number;
  private readonly key: SeedKey;
  private readonly metric: Metric;
  private readonly q: Float64Array;
  private readonly grad: Float64Array;
  private readonly p: Float64Array;
  private readonly vel: Float64Array;
  private readonly normals: Float64Array;
  private readonly startQ: Float64Array;
  private readonly startGrad: Float64Array;
  private startLp = 0;
  private iteration = 0;
  private trial = 0;
  private direction = 0;
  private H0 = 0;

  constructor(batch: ChainBatch, slot: ChainSlot, key: SeedKey, metric: Metric) {
    const dim = batch.dim;
    this.batch = batch;
    this.row = slot.row;
    this.id = slot.id;
    this.key = key;
    this.metric = metric;
    this.q = batch.qRows[slot.row]!;
    this.grad = batch.gradRows[slot.row]!;
    this.p = new Float64Array(dim);
    this.vel = new Float64Array(dim);
    this.normals = new Float64Array(dim);
    this.startQ = new Float64Array(dim);
    this.startGrad = new Float64Array(dim);
  }

  /** Starts from step size eps at the chain's row; returns true when it needs a gradient. */
  begin(iteration: number, eps: number): boolean {
    this.stepSize = eps;
    // Stan skips the search for extreme step sizes that could loop forever.
    if (eps === 0 || eps > 1e7 || Number.isNaN(eps)) return false;
    this.iteration = iteration;
    this.trial = 0;
    this.startQ.set(this.q);
    this.startGrad.set(this.grad);
    this.startLp = this.batch.lp[this.row]!;
    this.startTrial();
    return true;
  }

  /** Judges one trial step and either finishes or starts the next trial. */
  advance(): boolean {
    leapfrogEnd(this.p, this.grad, this.stepSize);
    const h = hamiltonian(this.batch.lp[this.row]!, this.grad, this.p, this.metric, this.vel);
    const deltaH = this.H0 - h;
    if (this.trial === 0) {
      this.direction = deltaH > LOG_08 ? 1 : -1;
    } else {
      const done = this.direction === 1 ? !(deltaH > LOG_08) : !(deltaH < LOG_08);
      if (done) {
        this.restoreStart();
        return false;
      }
      this.stepSize = this.direction === 1 ? 2 * this.stepSize : 0.5 * this.stepSize;
      if (this.stepSize > 1e7) {
        this.restoreStart();
        throw new StepSizeError(this.id, "the step size grew past 1e7 in the step-size search; the posterior may be improper — check the model");
      }
      if (this.stepSize === 0) {
        this.restoreStart();
        throw new StepSizeError(this.id, "no acceptably small step size was found; the posterior may not be continuous — check the model");
      }
    }
    this.trial++;
    this.restoreStart();
    this.startTrial();
    return true;
  }

  /** Fresh momentum at the start point, then the first half of one leapfrog step. */
  private startTrial(): void {
    streamNormals(this.key, this.id, this.iteration, Purpose.StepSize, this.trial, this.normals);
    this.metric.momentumFromNormals(this.normals, this.p);
    this.H0 = hamiltonian(this.startLp, this.startGrad, this.p, this.metric, this.vel);
    leapfrogBegin(this.q, this.p, this.grad, this.stepSize, this.metric, this.vel);
  }

  private restoreStart(): void {
    this.q.set(this.startQ);
    this.grad.set(this.startGrad);
    this.batch.lp[this.row] = this.startLp;
  }
}

/**
 * Static HMC: a fixed number of leapfrog steps from a fresh momentum, then a
 * Metropolis test (Accept uniform u0 of block 0) on the end point. Shares the
 * integrator with NUTS and, like it, asks for one gradient at a time.
 */

import type { ChainBatch } from "./batch.ts";
import { hamiltonian, leapfrogBegin, leapfrogEnd } from "./integrator.ts";
import type { Metric } from "./metric.ts";
import type { ChainSlot, Transition } from "./transition.ts";
import { Purpose, streamNormals, streamUniform, type SeedKey } from "../random/streams.ts";

/** Settings of a static HMC transition. */
export interface HmcSettings {
  /** Leapfrog steps per transition. */
  readonly steps: number;
  /** Energy error reported as divergent (as NUTS: 1000). */
  readonly maxDeltaH: number;
}

/** One chain's static HMC transition. */
export class HmcTransition implements Transition {
  acceptStat = 0;
  readonly treeDepth = 0;
  nLeapfrog = 0;
  divergent = false;
  energy = 0;

  private readonly batch: ChainBatch;
  private readonly row: number;
  private readonly id: number;
  private readonly key: SeedKey;
  private readonly metric: Metric;
  private readonly steps: number;
  private readonly maxDeltaH: number;
  private readonly q: Float64Array;
  private readonly grad: Float64Array;
  private readonly p: Float64Array;
  private readonly vel: Float64Array;
  private readonly normals: Float64Array;
  private readonly startQ: Float64Array;
  private readonly startGrad: Float64Array;
  private startLp = 0;
  private iteration = 0;
  private eps = 0;
  private H0 = 0;

  constructor(batch: ChainBatch, slot: ChainSlot, key: SeedKey, metric: Metric, settings: HmcSettings) {
    const dim = batch.dim;
    this.batch = batch;
    this.row = slot.row;
    this.id = slot.id;
    this.key = key;
    this.metric = metric;
    this.steps = settings.steps;
    this.maxDeltaH = settings.maxDeltaH;
    this.q = batch.qRows[slot.row]!;
    this.grad = batch.gradRows[slot.row]!;
    this.p = new Float64Array(dim);
    this.vel = new Float64Array(dim);
    this.normals = new Float64Array(dim);
    this.startQ = new Float64Array(dim);
    this.startGrad = new Float64Array(dim);
  }

  /** Draws the momentum and takes the first half step. */
  begin(iteration: number, eps: number): boolean {
    this.iteration = iteration;
    this.eps = eps;
    streamNormals(this.key, this.id, iteration, Purpose.Momentum, 0, this.normals);
    this.metric.momentumFromNormals(this.normals, this.p);
    this.startLp = this.batch.lp[this.row]!;
    this.startQ.set(this.q);
    this.startGrad.set(this.grad);
    this.H0 = hamiltonian(this.startLp, this.grad, this.p, this.metric, this.vel);
    this.nLeapfrog = 0;
    this.divergent = false;
    leapfrogBegin(this.q, this.p, this.grad, eps, this.metric, this.vel);
    return true;
  }

  /** Finishes a leapfrog step; after the last one, accepts or restores the start. */
  advance(): boolean {
    leapfrogEnd(this.p, this.grad, this.eps);
    this.nLeapfrog++;
    if (this.nLeapfrog < this.steps) {
      leapfrogBegin(this.q, this.p, this.grad, this.eps, this.metric, this.vel);
      return true;
    }
    const lp = this.batch.lp[this.row]!;
    const h = hamiltonian(lp, this.grad, this.p, this.metric, this.vel);
    this.divergent = h - this.H0 > this.maxDeltaH;
    this.acceptStat = Math.min(1, Math.exp(this.H0 - h));
    const u = streamUniform(this.key, this.id, this.iteration, Purpose.Accept, 0, 0, 0);
    if (u < this.acceptStat) {
      this.energy = h;
    } else {
      this.q.set(this.startQ);
      this.grad.set(this.startGrad);
      this.batch.lp[this.row] = this.startLp;
      this.energy = this.H0;
    }
    return false;
  }
}

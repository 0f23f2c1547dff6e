/**
 * Static HMC: a fixed number of leapfrog steps from a fresh momentum, then a
 * Metropolis test (Accept uniform u0 of block 0) on the end point. Shares the
 * integrator with NUTS and, like it, asks for one gradient at a time.
 */

import { hamiltonian, leapfrogBegin, leapfrogEnd } from "./integrator.ts";
import { drawMomentum, restoreRow, saveRow, trialStorage, type ChainContext, type TrialStorage, type Transition } from "./transition.ts";
import { Purpose, streamUniform } from "../random/streams.ts";

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

  private readonly chain: ChainContext;
  private readonly settings: HmcSettings;
  private readonly trial: TrialStorage;
  private iteration = 0;
  private eps = 0;
  private H0 = 0;

  constructor(chain: ChainContext, settings: HmcSettings) {
    this.chain = chain;
    this.settings = settings;
    this.trial = trialStorage(chain.q.length);
  }

  /** Draws the momentum and takes the first half step. */
  begin(iteration: number, eps: number): boolean {
    const { chain } = this;
    const { p, vel, normals, start } = this.trial;
    this.iteration = iteration;
    this.eps = eps;
    drawMomentum(chain, iteration, Purpose.Momentum, 0, normals, p);
    saveRow(chain, start);
    this.H0 = hamiltonian(start.lp, chain.grad, p, chain.metric, vel);
    this.nLeapfrog = 0;
    this.divergent = false;
    leapfrogBegin(chain.q, p, chain.grad, eps, chain.metric, vel);
    return true;
  }

  /** Finishes a leapfrog step; after the last one, accepts or restores the start. */
  advance(): boolean {
    const { chain } = this;
    const { p, vel } = this.trial;
    leapfrogEnd(p, chain.grad, this.eps);
    this.nLeapfrog++;
    if (this.nLeapfrog < this.settings.steps) {
      leapfrogBegin(chain.q, p, chain.grad, this.eps, chain.metric, vel);
      return true;
    }
    const h = hamiltonian(chain.batch.lp[chain.row]!, chain.grad, p, chain.metric, vel);
    this.divergent = h - this.H0 > this.settings.maxDeltaH;
    this.acceptStat = Math.min(1, Math.exp(this.H0 - h));
    const u = streamUniform(chain.key, chain.id, this.iteration, Purpose.Accept, 0, 0, 0);
    if (u < this.acceptStat) {
      this.energy = h;
    } else {
      restoreRow(chain, this.trial.start);
      this.energy = this.H0;
    }
    return false;
  }
}

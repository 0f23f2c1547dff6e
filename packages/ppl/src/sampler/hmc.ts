/**
 * Static HMC: a fixed number of leapfrog steps from a fresh momentum, then a
 * Metropolis test (Accept uniform u0 of block 0) on the end point. Shares the
 * integrator with NUTS; its trajectory (trajectory.ts) is taken a gradient at a time (begin,
 * advance) or handed whole to a driver (start, trajectory, finish).
 */

import { hamiltonian } from "./integrator.ts";
import { trajectory, trajectoryAdvance, trajectoryBegin, type Trajectory } from "./trajectory.ts";
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
  /** The transition's trajectory over the trial momentum: every step taken, whatever the density. */
  readonly trajectory: Trajectory;
  private iteration = 0;
  private H0 = 0;

  constructor(chain: ChainContext, settings: HmcSettings) {
    this.chain = chain;
    this.settings = settings;
    this.trial = trialStorage(chain.q.length);
    this.trajectory = trajectory(chain, this.trial.p, this.trial.vel, false);
  }

  /** Draws the momentum and takes the first half step. */
  begin(iteration: number, eps: number): boolean {
    if (trajectoryBegin(this.start(iteration, eps))) return true;
    this.finish();
    return false;
  }

  /** Finishes a leapfrog step; after the last one, accepts or restores the start. */
  advance(): boolean {
    if (trajectoryAdvance(this.trajectory)) return true;
    this.finish();
    return false;
  }

  /** Draws the momentum and keeps the start; returns the trajectory of `steps` steps of size eps. */
  start(iteration: number, eps: number): Trajectory {
    const { chain } = this;
    const { p, vel, normals, start } = this.trial;
    this.iteration = iteration;
    drawMomentum(chain, iteration, Purpose.Momentum, 0, normals, p);
    saveRow(chain, start);
    this.H0 = hamiltonian(start.lp, chain.grad, p, chain.metric, vel);
    this.nLeapfrog = 0;
    this.divergent = false;
    this.trajectory.steps = this.settings.steps;
    this.trajectory.stepSize = eps;
    return this.trajectory;
  }

  /** After the trajectory: accepts its end or restores the start. */
  finish(): void {
    const { chain } = this;
    const { p, vel } = this.trial;
    this.nLeapfrog = this.trajectory.taken;
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
  }
}

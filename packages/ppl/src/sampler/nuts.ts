/**
 * The No-U-Turn sampler, Stan-equivalent (base_nuts.hpp, Stan ≥ 2.21), as an
 * iterative per-chain state machine that asks for one gradient at a time.
 *
 * Trajectory: repeatedly double in a random direction (Tree uniform u0 of
 * block `depth` > 0.5: forward). A new subtree of 2^depth leaves is built from
 * the trajectory's end leaf by leaf; inside it the proposal is chosen by
 * uniform progressive sampling (leaf replaces the subtree's proposal with
 * probability w_leaf / w_subtree-so-far, Leaf uniform of block = leapfrog
 * index). The subtree is abandoned at a divergence (H − H0 > 1000, NaN counts
 * as +∞) or when any of its sub-subtrees U-turns (see termination.ts). A
 * complete subtree's proposal replaces the sample with probability
 * min(1, w_subtree / w_trajectory) (Tree uniform u1 of the same block), then
 * the merged trajectory and its two seams are checked. Depth stops at maxDepth.
 *
 * accept_stat is the mean of min(1, exp(H0 − H)) over every leapfrog state
 * built, including those of an abandoned subtree.
 */

import type { ChainBatch } from "./batch.ts";
import { hamiltonian, leapfrogBegin, leapfrogEndHamiltonian } from "./integrator.ts";
import type { Metric } from "./metric.ts";
import { biasedAcceptProbability, logAddExp, uniformAcceptProbability } from "./proposal.ts";
import { mergedTrajectoryContinues, SubtreeTermination } from "./termination.ts";
import type { ChainSlot, Transition } from "./transition.ts";
import { Purpose, streamNormals, streamUniform, type SeedKey } from "../random/streams.ts";

/** Settings of a NUTS transition. */
export interface NutsSettings {
  /** Maximum number of doublings (Stan's max_depth, default 10). */
  readonly maxDepth: number;
  /** Energy error that counts as a divergence (Stan: 1000). */
  readonly maxDeltaH: number;
}

/** Default NUTS settings as in Stan. */
export const defaultNutsSettings: NutsSettings = { maxDepth: 10, maxDeltaH: 1000 };

/** One chain's NUTS transition; all storage is allocated once here. */
export class NutsTransition implements Transition {
  acceptStat = 0;
  treeDepth = 0;
  nLeapfrog = 0;
  divergent = false;
  energy = 0;

  private readonly batch: ChainBatch;
  private readonly row: number;
  private readonly id: number;
  private readonly key: SeedKey;
  private readonly metric: Metric;
  private readonly maxDepth: number;
  private readonly maxDeltaH: number;

  // The state being integrated: q and grad are this chain's batch rows.
  private readonly q: Float64Array;
  private readonly grad: Float64Array;
  private readonly p: Float64Array;
  private readonly sharp: Float64Array;
  // Trajectory ends ("plus" is forward in time).
  private readonly qPlus: Float64Array;
  private readonly pPlus: Float64Array;
  private readonly gradPlus: Float64Array;
  private readonly sharpPlus: Float64Array;
  private readonly qMinus: Float64Array;
  private readonly pMinus: Float64Array;
  private readonly gradMinus: Float64Array;
  private readonly sharpMinus: Float64Array;
  /** Summed momentum of the trajectory (without the subtree in progress). */
  private readonly rho: Float64Array;
  // The sample so far and the proposal of the subtree in progress.
  private readonly sampleQ: Float64Array;
  private readonly sampleGrad: Float64Array;
  private sampleLp = 0;
  private sampleEnergy = 0;
  private readonly proposalQ: Float64Array;
  private readonly proposalGrad: Float64Array;
  private proposalLp = 0;
  private proposalEnergy = 0;
  private readonly termination: SubtreeTermination;
  private readonly normals: Float64Array;
  private readonly scratch: Float64Array;

  private iteration = 0;
  private eps = 0;
  private H0 = 0;
  private logSumWeight = 0;
  private logSumWeightSubtree = -Infinity;
  private sumMetropolis = 0;
  private direction = 1;
  private leaf = 0;
  private subtreeSize = 1;

  constructor(batch: ChainBatch, slot: ChainSlot, key: SeedKey, metric: Metric, settings: NutsSettings = defaultNutsSettings) {
    const dim = batch.dim;
    this.batch = batch;
    this.row = slot.row;
    this.id = slot.id;
    this.key = key;
    this.metric = metric;
    this.maxDepth = settings.maxDepth;
    this.maxDeltaH = settings.maxDeltaH;
    this.q = batch.qRows[slot.row]!;
    this.grad = batch.gradRows[slot.row]!;
    const vec = (): Float64Array => new Float64Array(dim);
    this.p = vec();
    this.sharp = vec();
    this.qPlus = vec();
    this.pPlus = vec();
    this.gradPlus = vec();
    this.sharpPlus = vec();
    this.qMinus = vec();
    this.pMinus = vec();
    this.gradMinus = vec();
    this.sharpMinus = vec();
    this.rho = vec();
    this.sampleQ = vec();
    this.sampleGrad = vec();
    this.proposalQ = vec();
    this.proposalGrad = vec();
    this.termination = new SubtreeTermination(dim, this.maxDepth);
    this.normals = vec();
    this.scratch = vec();
  }

  /** The last transition's backward end (q, p), for tests and diagnostics. */
  get minusEnd(): { readonly q: Float64Array; readonly p: Float64Array } {
    return { q: this.qMinus, p: this.pMinus };
  }

  /** The last transition's forward end (q, p), for tests and diagnostics. */
  get plusEnd(): { readonly q: Float64Array; readonly p: Float64Array } {
    return { q: this.qPlus, p: this.pPlus };
  }

  /** Starts the transition for `iteration` with step size eps from the chain's row. */
  begin(iteration: number, eps: number): boolean {
    this.iteration = iteration;
    this.eps = eps;
    streamNormals(this.key, this.id, iteration, Purpose.Momentum, 0, this.normals);
    this.metric.momentumFromNormals(this.normals, this.p);
    const lp = this.batch.lp[this.row]!;
    this.H0 = hamiltonian(lp, this.grad, this.p, this.metric, this.sharp);

    this.qPlus.set(this.q);
    this.pPlus.set(this.p);
    this.gradPlus.set(this.grad);
    this.sharpPlus.set(this.sharp);
    this.qMinus.set(this.q);
    this.pMinus.set(this.p);
    this.gradMinus.set(this.grad);
    this.sharpMinus.set(this.sharp);
    this.rho.set(this.p);
    this.sampleQ.set(this.q);
    this.sampleGrad.set(this.grad);
    this.sampleLp = lp;
    this.sampleEnergy = this.H0;

    this.logSumWeight = 0; // log(exp(H0 − H0))
    this.sumMetropolis = 0;
    this.nLeapfrog = 0;
    this.treeDepth = 0;
    this.divergent = false;
    if (!Number.isFinite(this.H0)) {
      // Cannot happen from a finite start, but never integrate from one that is not.
      this.divergent = true;
      return this.finish();
    }
    return this.startSubtree();
  }

  /** Consumes the gradient at the newest leaf; see the module comment for the algorithm. */
  advance(): boolean {
    const { q, p, grad, sharp } = this;
    this.nLeapfrog++;
    const lp = this.batch.lp[this.row]!;
    const h = leapfrogEndHamiltonian(lp, p, grad, this.direction * this.eps, this.metric, sharp);
    if (h - this.H0 > this.maxDeltaH) this.divergent = true;
    const logWeight = this.H0 - h;
    this.logSumWeightSubtree = logAddExp(this.logSumWeightSubtree, logWeight);
    this.sumMetropolis += logWeight > 0 ? 1 : Math.exp(logWeight);
    if (this.divergent) return this.finish();

    if (
      this.leaf === 0 ||
      streamUniform(this.key, this.id, this.iteration, Purpose.Leaf, 0, this.nLeapfrog - 1, 0) <
        uniformAcceptProbability(logWeight, this.logSumWeightSubtree)
    ) {
      this.proposalQ.set(q);
      this.proposalGrad.set(grad);
      this.proposalLp = lp;
      this.proposalEnergy = h;
    }
    if (!this.termination.addLeaf(this.leaf, p, sharp)) return this.finish();

    this.leaf++;
    if (this.leaf < this.subtreeSize) {
      leapfrogBegin(q, p, grad, this.direction * this.eps, this.metric, this.scratch);
      return true;
    }
    return this.mergeSubtree();
  }

  /** Picks a direction and starts the next subtree from that end of the trajectory. */
  private startSubtree(): boolean {
    if (this.treeDepth >= this.maxDepth) return this.finish();
    const u = streamUniform(this.key, this.id, this.iteration, Purpose.Tree, 0, this.treeDepth, 0);
    this.direction = u > 0.5 ? 1 : -1;
    if (this.direction > 0) {
      this.q.set(this.qPlus);
      this.p.set(this.pPlus);
      this.grad.set(this.gradPlus);
    } else {
      this.q.set(this.qMinus);
      this.p.set(this.pMinus);
      this.grad.set(this.gradMinus);
    }
    this.termination.reset(this.treeDepth);
    this.leaf = 0;
    this.subtreeSize = 1 << this.treeDepth;
    this.logSumWeightSubtree = -Infinity;
    leapfrogBegin(this.q, this.p, this.grad, this.direction * this.eps, this.metric, this.scratch);
    return true;
  }

  /** A complete, valid subtree: biased progressive sampling, then the top-level U-turn checks. */
  private mergeSubtree(): boolean {
    const depthBlock = this.treeDepth;
    this.treeDepth++;
    const u = streamUniform(this.key, this.id, this.iteration, Purpose.Tree, 0, depthBlock, 1);
    if (u < biasedAcceptProbability(this.logSumWeightSubtree, this.logSumWeight)) {
      this.sampleQ.set(this.proposalQ);
      this.sampleGrad.set(this.proposalGrad);
      this.sampleLp = this.proposalLp;
      this.sampleEnergy = this.proposalEnergy;
    }
    this.logSumWeight = logAddExp(this.logSumWeight, this.logSumWeightSubtree);

    const forward = this.direction > 0;
    const t = this.termination;
    const continues = mergedTrajectoryContinues(
      this.rho,
      forward ? this.sharpMinus : this.sharpPlus,
      forward ? this.pPlus : this.pMinus,
      forward ? this.sharpPlus : this.sharpMinus,
      t.rho,
      t.firstP,
      t.firstSharp,
      this.sharp,
      this.scratch,
    );
    const rho = this.rho;
    for (let i = 0; i < rho.length; i++) rho[i] = rho[i]! + t.rho[i]!;
    // The subtree's last leaf is the trajectory's new end on this side.
    if (forward) {
      this.qPlus.set(this.q);
      this.pPlus.set(this.p);
      this.gradPlus.set(this.grad);
      this.sharpPlus.set(this.sharp);
    } else {
      this.qMinus.set(this.q);
      this.pMinus.set(this.p);
      this.gradMinus.set(this.grad);
      this.sharpMinus.set(this.sharp);
    }
    if (!continues) return this.finish();
    return this.startSubtree();
  }

  /** Writes the sample into the chain's row and the statistics; the chain goes idle. */
  private finish(): boolean {
    this.q.set(this.sampleQ);
    this.grad.set(this.sampleGrad);
    this.batch.lp[this.row] = this.sampleLp;
    this.acceptStat = this.nLeapfrog > 0 ? this.sumMetropolis / this.nLeapfrog : 0;
    this.energy = this.sampleEnergy;
    return false;
  }
}

/**
 * The No-U-Turn sampler, Stan-equivalent (base_nuts.hpp, Stan ≥ 2.21), as small
 * functions over one explicit state record, BlackJAX-style: `initNuts` makes the
 * state, `nutsStep` takes the gradient just computed and runs until the next one
 * is needed or the transition is done. The record and the steps are those of the
 * GPU sampler, by the same names: NutsState holds nuts-layout.ts's
 * CONTROLLER_VECTORS, CONTROLLER_REALS and CONTROLLER_INTS, beginTransition …
 * endTransition are common.glsl's begin_transition, tree_continues,
 * begin_subtree, leapfrog_drift, end_leaf and merge_subtree, and nutsStep is
 * controller.glsl's phase machine for one chain.
 *
 * Trajectory: repeatedly double in a random direction (Tree uniform u0 of
 * block `depth` > 0.5: forward). A new subtree of 2^depth leaves is built from
 * the trajectory's end leaf by leaf; inside it the proposal is chosen by
 * uniform progressive sampling (leaf replaces the subtree's proposal with
 * probability w_leaf / w_subtree-so-far, Leaf uniform of block = leapfrog
 * index). The subtree is abandoned at a divergence (H − H0 > maxDeltaH, NaN
 * counts as +∞) or when any of its sub-subtrees U-turns (see termination.ts). A
 * complete subtree's proposal replaces the sample with probability
 * min(1, w_subtree / w_trajectory) (Tree uniform u1 of the same block), then
 * the merged trajectory and its two seams are checked. Depth stops at maxDepth.
 *
 * accept_stat is the mean of min(1, exp(H0 − H)) over every leapfrog state
 * built, including those of an abandoned subtree.
 */

import { hamiltonian, leapfrogBegin, leapfrogEndHamiltonian } from "./integrator.ts";
import { biasedAcceptProbability, logAddExp, uniformAcceptProbability } from "./proposal.ts";
import { addLeaf, initTermination, mergedTrajectoryContinues, resetTermination, type TerminationState } from "./termination.ts";
import { drawMomentum, type ChainContext, type Transition } from "./transition.ts";
import { Purpose, streamUniform } from "../random/streams.ts";
import { copyVector } from "./linalg.ts";

/** Settings of a NUTS transition. */
export interface NutsSettings {
  /** Maximum number of doublings (Stan's max_depth, default 10). */
  readonly maxDepth: number;
  /** Energy error that counts as a divergence (Stan: 1000). */
  readonly maxDeltaH: number;
}

/** Default NUTS settings as in Stan. */
export const defaultNutsSettings: NutsSettings = { maxDepth: 10, maxDeltaH: 1000 };

/** What a chain's NUTS steps read and never change: the chain (rows, stream, metric) and the settings. */
export interface NutsContext extends ChainContext, NutsSettings {}

/** Where a transition stands between two gradients (controller.glsl's PHASE_*). */
export const NutsPhase = { Begin: 0, Leaf: 1, Idle: 2 } as const;

/** One of the phases of {@link NutsPhase}. */
export type NutsPhase = (typeof NutsPhase)[keyof typeof NutsPhase];

/**
 * Everything one chain's NUTS transition keeps between gradients, named as the GPU sampler's state
 * (nuts-layout.ts). q and g are the chain's batch rows: the position whose gradient is asked for
 * next, and that gradient, filled in place. "Plus" is forward in time.
 */
export interface NutsState {
  phase: NutsPhase;
  iteration: number;
  eps: number;
  // The state being integrated.
  readonly q: Float64Array;
  readonly g: Float64Array;
  readonly p: Float64Array;
  /** p♯ = M⁻¹p at the newest leaf, recomputed at every leaf. */
  readonly sharp: Float64Array;
  // The proposal of the subtree in progress.
  readonly propQ: Float64Array;
  readonly propG: Float64Array;
  propLp: number;
  propEnergy: number;
  /** The subtree's U-turn checks (common.glsl's t_* state). */
  readonly t: TerminationState;
  // The trajectory's ends.
  readonly qPlus: Float64Array;
  readonly pPlus: Float64Array;
  readonly gPlus: Float64Array;
  readonly sharpPlus: Float64Array;
  readonly qMinus: Float64Array;
  readonly pMinus: Float64Array;
  readonly gMinus: Float64Array;
  readonly sharpMinus: Float64Array;
  /** Summed momentum of the trajectory, without the subtree in progress. */
  readonly rho: Float64Array;
  // The sample so far.
  readonly sampleQ: Float64Array;
  readonly sampleG: Float64Array;
  sampleLp: number;
  sampleEnergy: number;
  /** Energy at the transition's start. */
  H0: number;
  /** log Σ exp(H0 − H) over the trajectory, and over the subtree in progress. */
  logSumW: number;
  logSumWSub: number;
  /** Σ min(1, exp(H0 − H)) over every leaf built: accept_stat's numerator. */
  sumMetro: number;
  nLeap: number;
  depth: number;
  /** The leaf of the subtree whose gradient comes next (0-based). */
  leaf: number;
  forward: boolean;
  divergent: boolean;
  // Scratch: the velocity of a drift, the standard normals of a momentum draw, the U-turn checks' length.
  readonly scratch: Float64Array;
  readonly normals: Float64Array;
}

/** The state of a chain's transitions over its batch rows q and g, allocated once (phase Idle). */
export function initNuts(q: Float64Array, g: Float64Array, maxDepth: number): NutsState {
  const dim = q.length;
  const vec = (): Float64Array => new Float64Array(dim);
  return {
    phase: NutsPhase.Idle, iteration: 0, eps: 0,
    q, g, p: vec(), sharp: vec(),
    propQ: vec(), propG: vec(), propLp: 0, propEnergy: 0,
    t: initTermination(dim, maxDepth),
    qPlus: vec(), pPlus: vec(), gPlus: vec(), sharpPlus: vec(),
    qMinus: vec(), pMinus: vec(), gMinus: vec(), sharpMinus: vec(),
    rho: vec(), sampleQ: vec(), sampleG: vec(), sampleLp: 0, sampleEnergy: 0,
    H0: 0, logSumW: 0, logSumWSub: -Infinity, sumMetro: 0,
    nLeap: 0, depth: 0, leaf: 0, forward: true, divergent: false,
    scratch: vec(), normals: vec(),
  };
}

/**
 * begin_transition: a fresh momentum at (q, g, lp); the trajectory's ends and the sample start at
 * the point. A start whose energy is not finite (never from a finite point) counts as divergent.
 */
export function beginTransition(s: NutsState, c: NutsContext, lp: number): void {
  drawMomentum(c, s.iteration, Purpose.Momentum, 0, s.normals, s.p);
  s.H0 = hamiltonian(lp, s.g, s.p, c.metric, s.sharp);
  copyVector(s.qPlus, s.q);
  copyVector(s.pPlus, s.p);
  copyVector(s.gPlus, s.g);
  copyVector(s.sharpPlus, s.sharp);
  copyVector(s.qMinus, s.q);
  copyVector(s.pMinus, s.p);
  copyVector(s.gMinus, s.g);
  copyVector(s.sharpMinus, s.sharp);
  copyVector(s.rho, s.p);
  copyVector(s.sampleQ, s.q);
  copyVector(s.sampleG, s.g);
  s.sampleLp = lp;
  s.sampleEnergy = s.H0;
  s.propLp = lp;
  s.propEnergy = s.H0;
  s.logSumW = 0; // log(exp(H0 − H0))
  s.sumMetro = 0;
  s.nLeap = 0;
  s.depth = 0;
  s.divergent = !Number.isFinite(s.H0);
}

/** tree_continues: whether the trajectory grows by another subtree. */
export function treeContinues(s: NutsState, c: NutsContext): boolean {
  return !s.divergent && s.depth < c.maxDepth;
}

/** begin_subtree: a subtree of 2^depth leaves from the trajectory's end in a random direction. */
export function beginSubtree(s: NutsState, c: NutsContext): void {
  const u = streamUniform(c.key, c.id, s.iteration, Purpose.Tree, 0, s.depth, 0);
  s.forward = u > 0.5;
  if (s.forward) {
    copyVector(s.q, s.qPlus);
    copyVector(s.p, s.pPlus);
    copyVector(s.g, s.gPlus);
  } else {
    copyVector(s.q, s.qMinus);
    copyVector(s.p, s.pMinus);
    copyVector(s.g, s.gMinus);
  }
  resetTermination(s.t, s.depth);
  s.leaf = 0;
  s.logSumWSub = -Infinity;
}

/** The signed step: ε carries the direction of time. */
function stepH(s: NutsState): number {
  return s.forward ? s.eps : -s.eps;
}

/** leapfrog_drift: the first half of a leapfrog (half kick, drift); the gradient at the new q comes next. */
export function leapfrogDrift(s: NutsState, c: NutsContext): void {
  leapfrogBegin(s.q, s.p, s.g, stepH(s), c.metric, s.scratch);
}

/**
 * end_leaf: the leapfrog's closing half kick at the gradient g and log density lp just computed,
 * then the leaf's energy, multinomial weight, proposal and U-turn checks; false when the subtree
 * ends early (a divergence or a U-turn inside it).
 */
export function endLeaf(s: NutsState, c: NutsContext, lp: number): boolean {
  s.nLeap++;
  const H = leapfrogEndHamiltonian(lp, s.p, s.g, stepH(s), c.metric, s.sharp);
  if (H - s.H0 > c.maxDeltaH) s.divergent = true;
  const logW = s.H0 - H;
  s.logSumWSub = logAddExp(s.logSumWSub, logW);
  s.sumMetro += logW > 0 ? 1 : Math.exp(logW);
  if (s.divergent) return false;
  proposeLeaf(s, c, logW, lp, H);
  return addLeaf(s.t, s.leaf, s.p, s.sharp);
}

/** Uniform progressive sampling within the subtree: the leaf replaces its proposal with probability w_leaf / w_subtree. */
function proposeLeaf(s: NutsState, c: NutsContext, logW: number, lp: number, H: number): void {
  if (s.leaf !== 0 && !(streamUniform(c.key, c.id, s.iteration, Purpose.Leaf, 0, s.nLeap - 1, 0) < uniformAcceptProbability(logW, s.logSumWSub))) return;
  copyVector(s.propQ, s.q);
  copyVector(s.propG, s.g);
  s.propLp = lp;
  s.propEnergy = H;
}

/**
 * merge_subtree: a complete, valid subtree's proposal by biased progressive sampling, then the
 * top-level U-turn checks (the whole trajectory and the two seams); its last leaf becomes the
 * trajectory's end on its side. False when the trajectory stops.
 */
export function mergeSubtree(s: NutsState, c: NutsContext): boolean {
  const depthBlock = s.depth;
  s.depth++;
  proposeSubtree(s, c, depthBlock);
  s.logSumW = logAddExp(s.logSumW, s.logSumWSub);
  const { forward, t } = s;
  const continues = mergedTrajectoryContinues(
    s.rho,
    forward ? s.sharpMinus : s.sharpPlus,
    forward ? s.pPlus : s.pMinus,
    forward ? s.sharpPlus : s.sharpMinus,
    t.rho,
    t.firstP,
    t.firstSharp,
    s.sharp,
    s.scratch,
  );
  const rho = s.rho;
  for (let i = 0; i < rho.length; i++) rho[i] = rho[i]! + t.rho[i]!;
  if (forward) {
    copyVector(s.qPlus, s.q);
    copyVector(s.pPlus, s.p);
    copyVector(s.gPlus, s.g);
    copyVector(s.sharpPlus, s.sharp);
  } else {
    copyVector(s.qMinus, s.q);
    copyVector(s.pMinus, s.p);
    copyVector(s.gMinus, s.g);
    copyVector(s.sharpMinus, s.sharp);
  }
  return continues;
}

/** Biased progressive sampling at a merge: the subtree's proposal replaces the sample with probability min(1, w_subtree / w_trajectory). */
function proposeSubtree(s: NutsState, c: NutsContext, depthBlock: number): void {
  const u = streamUniform(c.key, c.id, s.iteration, Purpose.Tree, 0, depthBlock, 1);
  if (!(u < biasedAcceptProbability(s.logSumWSub, s.logSumW))) return;
  copyVector(s.sampleQ, s.propQ);
  copyVector(s.sampleG, s.propG);
  s.sampleLp = s.propLp;
  s.sampleEnergy = s.propEnergy;
}

/** write_result's state part: the sample becomes the chain's position and gradient (its lp is sampleLp). */
export function endTransition(s: NutsState): void {
  copyVector(s.q, s.sampleQ);
  copyVector(s.g, s.sampleG);
}

/** Stan's accept_stat of the finished transition: write_result's acceptStat. */
export function acceptStatistic(s: NutsState): number {
  return s.nLeap > 0 ? s.sumMetro / s.nLeap : 0;
}

/**
 * One call of controller.glsl's loop for one chain and one transition: in phase Begin it starts
 * the transition (set iteration and eps first) at lp, in phase Leaf it ends the pending leaf with
 * the log density lp and gradient g computed at q. Then it merges subtrees and starts the next as
 * the trajectory requires, and either drifts to the next leaf's position (true: a gradient at q is
 * wanted) or ends the transition (false: phase Idle, q and g hold the sample).
 */
export function nutsStep(s: NutsState, c: NutsContext, lp: number): boolean {
  let more: boolean;
  if (s.phase === NutsPhase.Leaf) {
    const valid = endLeaf(s, c, lp);
    s.leaf++;
    if (valid && s.leaf < 1 << s.depth) more = true;
    else if (valid && mergeSubtree(s, c) && treeContinues(s, c)) {
      beginSubtree(s, c);
      more = true;
    } else more = false;
  } else {
    beginTransition(s, c, lp);
    more = treeContinues(s, c);
    if (more) beginSubtree(s, c);
  }
  if (more) {
    leapfrogDrift(s, c);
    s.phase = NutsPhase.Leaf;
    return true;
  }
  endTransition(s);
  s.phase = NutsPhase.Idle;
  return false;
}

/** One chain's NUTS transition as a {@link Transition}: the state and steps above over the chain's batch rows. */
export class NutsTransition implements Transition {
  /** The transition's state, for tests and diagnostics (e.g. the trajectory's ends qMinus/pMinus, qPlus/pPlus). */
  readonly state: NutsState;
  private readonly context: NutsContext;

  constructor(chain: ChainContext, settings: NutsSettings = defaultNutsSettings) {
    this.context = { ...chain, maxDepth: settings.maxDepth, maxDeltaH: settings.maxDeltaH };
    this.state = initNuts(chain.q, chain.grad, settings.maxDepth);
  }

  get acceptStat(): number {
    return acceptStatistic(this.state);
  }

  get treeDepth(): number {
    return this.state.depth;
  }

  get nLeapfrog(): number {
    return this.state.nLeap;
  }

  get divergent(): boolean {
    return this.state.divergent;
  }

  get energy(): number {
    return this.state.sampleEnergy;
  }

  /** Starts the transition for `iteration` with step size eps from the chain's row. */
  begin(iteration: number, eps: number): boolean {
    const s = this.state;
    s.iteration = iteration;
    s.eps = eps;
    s.phase = NutsPhase.Begin;
    return this.advance();
  }

  /** Consumes the gradient at the newest leaf; see the module comment for the algorithm. */
  advance(): boolean {
    const { batch, row } = this.context;
    if (nutsStep(this.state, this.context, batch.lp[row]!)) return true;
    batch.lp[row] = this.state.sampleLp;
    return false;
  }
}

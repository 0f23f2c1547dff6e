/**
 * A trajectory of n leapfrog steps whose length is fixed before it starts (static HMC; ChEES
 * within an iteration): what a method hands to its driver, so that a density able to run many
 * steps at once (a GPU's, LeapfrogDensity.leapfrogs) runs the whole trajectory of every chain in
 * one call. leapfrogsByRounds is the CPU's way and the reference: one batched density call a
 * step, the halves of integrator.ts between them, exactly the loop a method's begin/advance runs.
 */
import type { ChainBatch } from "./batch.ts";
import type { BatchedDensity } from "./density.ts";
import { leapfrogBegin, leapfrogEnd } from "./integrator.ts";
import { copyRow, drawMomentum, type ChainContext } from "./transition.ts";
import { streamUniform, type Purpose } from "../random/streams.ts";

/**
 * A batched density that may run whole trajectories itself: `leapfrogs` runs the trajectory of
 * every chain of the batch at once (trajectories[c] is row c's), leaving what leapfrogsByRounds
 * leaves (a trajectory's momentum drawn first where it asks for the draw, each chain's row at its
 * end, its momentum, its steps taken, its gradients counted in batch.evaluations); a GPU's runs the
 * draws and all steps in one submission. Any BatchedDensity is one (without it, the driver takes
 * the steps by rounds of logpGrad).
 */
export interface LeapfrogDensity extends BatchedDensity {
  leapfrogs?(batch: ChainBatch, trajectories: readonly Trajectory[]): void;
}

/** One chain's trajectory: where it starts (the chain's row), its momentum, its length and step size. */
export interface Trajectory {
  readonly chain: ChainContext;
  /** The momentum, integrated in place: at the trajectory's end after a run. */
  readonly p: Float64Array;
  /** Scratch for M⁻¹p. */
  readonly vel: Float64Array;
  /** Leapfrog steps to take (0: none). */
  steps: number;
  /** ε, signed (negative integrates backwards). */
  stepSize: number;
  /**
   * Stop at the first point whose log density is not finite, its q, p, lp and gradient kept
   * (ChEES); otherwise every step is taken whatever the density (static HMC).
   */
  stopAtNonFinite: boolean;
  /** Steps the last run took. */
  taken: number;
  /**
   * Where a method keeps every chain's momentum in one array (ChEES): that array, whose row
   * chain.row is p, so that a density running the trajectories copies the momenta in one piece.
   */
  readonly momentumRows?: Float64Array;
  /** Where the trajectory draws its momentum itself before its first step (ChEES): what to draw, and where it is kept. */
  readonly draw?: MomentumDraw;
}

/**
 * A momentum drawn as the trajectory starts, by whatever runs it: p ~ N(0, M) with the chain's
 * metric, from block sub of the chain's `purpose` stream at `iteration` (drawMomentum's), written
 * to p and kept in `initial` (the Metropolis test's start energy reads it). A device draws it with
 * the same bits in f64 (random/philox-graph.ts).
 */
export interface MomentumDraw {
  /** The iteration whose stream is drawn, set by the method before each run. */
  iteration: number;
  readonly purpose: Purpose;
  readonly sub: number;
  /** The momentum drawn, the chain's row of initialRows where the method keeps every chain's in one array. */
  readonly initial: Float64Array;
  readonly initialRows?: Float64Array;
  /**
   * Where the transition's Metropolis test takes its uniform from the chain's `acceptPurpose`
   * stream at the same iteration (variate 0 of block 0, streamUniform's): drawn with the momentum
   * into acceptUniform, so that the host draws nothing where a device runs the trajectory.
   */
  readonly acceptPurpose?: Purpose;
  acceptUniform: number;
}

/**
 * A trajectory over the chain's own momentum and scratch, of no steps until a method sets them;
 * momentumRows, where p is the chain's row of an array of every chain's momentum.
 */
export function trajectory(chain: ChainContext, p: Float64Array, vel: Float64Array, stopAtNonFinite: boolean, momentumRows?: Float64Array, draw?: MomentumDraw): Trajectory {
  // One literal of every field (absent ones undefined): objects of one shape, read and written every iteration.
  return { chain, p, vel, steps: 0, stepSize: 0, stopAtNonFinite, taken: 0, momentumRows, draw };
}

/** The trajectory's own momentum draw, on the host: drawMomentum into p (vel the normals' scratch, free before the first step), kept in draw.initial, and the accept uniform where asked for. */
export function drawTrajectoryMomentum(t: Trajectory, draw: MomentumDraw): void {
  const { chain } = t;
  drawMomentum(chain, draw.iteration, draw.purpose, draw.sub, t.vel, t.p);
  copyRow(t.p, draw.initial);
  if (draw.acceptPurpose !== undefined) draw.acceptUniform = streamUniform(chain.key, chain.id, draw.iteration, draw.acceptPurpose, 0, 0, 0);
}

/**
 * The array holding every trajectory's momentum as its chain's row, trajectory c's chain in batch
 * row c (a batch-wide method's: one copy moves them all); null where they are rows of no one array.
 */
export function momentumRowsOf(trajectories: readonly Trajectory[], dim: number): Float64Array | null {
  const rows = trajectories[0]?.momentumRows;
  if (!rows || rows.length !== trajectories.length * dim) return null;
  for (let c = 0; c < trajectories.length; c++) {
    const t = trajectories[c]!;
    if (t.momentumRows !== rows || t.chain.row !== c) return null;
  }
  return rows;
}

/** Starts a run: the momentum where the trajectory draws it, the first step's half kick and drift; true when it needs the gradient at chain.q. */
export function trajectoryBegin(t: Trajectory): boolean {
  t.taken = 0;
  if (t.draw) drawTrajectoryMomentum(t, t.draw);
  if (t.steps <= 0) return false;
  const { chain } = t;
  leapfrogBegin(chain.q, t.p, chain.grad, t.stepSize, chain.metric, t.vel);
  return true;
}

/** After the gradient at chain.q: the closing half kick; true when another step follows (its first half taken). */
export function trajectoryAdvance(t: Trajectory): boolean {
  const { chain } = t;
  leapfrogEnd(t.p, chain.grad, t.stepSize);
  t.taken++;
  if (t.taken >= t.steps) return false;
  // A point outside the support ends the trajectory there, where the method asks for it.
  if (t.stopAtNonFinite && !Number.isFinite(chain.batch.lp[chain.row]!)) return false;
  leapfrogBegin(chain.q, t.p, chain.grad, t.stepSize, chain.metric, t.vel);
  return true;
}

/**
 * Runs the trajectory of every chain of the batch (trajectories[c] is row c's), one batched
 * density call a round over the chains still stepping: the CPU's implementation of
 * LeapfrogDensity.leapfrogs, counting each chain's gradients in batch.evaluations.
 */
export function leapfrogsByRounds(density: BatchedDensity, batch: ChainBatch, trajectories: readonly Trajectory[]): void {
  const { active, evaluations } = batch;
  for (let c = 0; c < batch.chains; c++) active[c] = trajectoryBegin(trajectories[c]!) ? 1 : 0;
  while (batch.anyActive()) {
    density.logpGrad(batch.q, batch.lp, batch.grad, active);
    for (let c = 0; c < batch.chains; c++) {
      if (active[c] === 0) continue;
      evaluations[c] = evaluations[c]! + 1;
      active[c] = trajectoryAdvance(trajectories[c]!) ? 1 : 0;
    }
  }
}

/** Runs every chain's trajectory on the density's own implementation where it has one, else by rounds. */
export function runLeapfrogs(density: LeapfrogDensity, batch: ChainBatch, trajectories: readonly Trajectory[]): void {
  if (density.leapfrogs) density.leapfrogs(batch, trajectories);
  else leapfrogsByRounds(density, batch, trajectories);
}

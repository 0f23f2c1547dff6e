/**
 * ChEES-HMC (Hoffman, Radul & Sountsov 2021), written against the inference layer's surface
 * (layer.ts): many chains share one step size ε and one trajectory length T. Each iteration draws a
 * jitter h ∈ (0, 1], the same for every chain (Halton's base-2 sequence of the iteration by
 * default, or a uniform from a stream no chain owns), and every chain takes n = ⌈h·T/ε⌉ leapfrog
 * steps (at most 2^maxDepth), then a Metropolis test. The chains run in lockstep, so each leapfrog
 * is one batched density call for all of them, or the whole trajectory one call where the density
 * runs leapfrogs itself (a GPU's). Warmup (chees-adaptation.ts) adapts ε, T and a
 * diagonal metric across chains; afterwards they are fixed.
 */
import { hamiltonian } from "../integrator.ts";
import { trajectory, type MomentumDraw, type Trajectory } from "../trajectory.ts";
import { cheesAdaptation } from "./chees-adaptation.ts";
import { leapfrogMethod } from "./leapfrog-method.ts";
import { copyRow, Purpose, restoreRow, saveRow, streamUniform, type ChainContext, type RowCopy, type SamplingMethod } from "./layer.ts";
import type { MethodSettings } from "./method.ts";
import { cheesRows, type CheesJitter, type CheesRows, type CheesState } from "./chees-state.ts";
import type { ChainBatch } from "../batch.ts";

/** Element `index` (≥ 1) of the base-2 van der Corput (Halton) sequence, in (0, 1). */
export function halton(index: number): number {
  let result = 0;
  let f = 0.5;
  for (let i = index; i > 0; i = Math.floor(i / 2)) {
    result += f * (i % 2);
    f *= 0.5;
  }
  return result;
}

// A uniform's stream no chain uses: chain id 0's StepSize purpose at a sub-stream of its own, so that
// every chain of a run (in any thread, any range of chains) reads the same jitter.
const JITTER_SUB = 0x100;

/** The iteration's jitter h ∈ (0, 1], the same for every chain of a run. */
export function cheesJitter(chain: ChainContext, kind: CheesJitter, iteration: number): number {
  if (kind === "halton") return halton(iteration + 1);
  return 1 - streamUniform(chain.key, 0, iteration, Purpose.StepSize, JITTER_SUB, 0, 0);
}

// Each batch's rows, made by its first chain's init: the chains of a run share one batch.
const batchRows = new WeakMap<ChainBatch, CheesRows>();

function rowsOf(batch: ChainBatch): CheesRows {
  let rows = batchRows.get(batch);
  if (!rows || rows.chains !== batch.chains || rows.dim !== batch.dim) {
    rows = cheesRows(batch.chains, batch.dim);
    batchRows.set(batch, rows);
  }
  return rows;
}

// The chain's saved start as views of the rows (its lp an element of startLp).
function startView(rows: CheesRows, row: number): RowCopy {
  const at = row * rows.dim;
  const { startLp } = rows;
  return {
    q: rows.startQ.subarray(at, at + rows.dim),
    grad: rows.startGrad.subarray(at, at + rows.dim),
    get lp() {
      return startLp[row]!;
    },
    set lp(v: number) {
      startLp[row] = v;
    },
  };
}

function initState(chain: ChainContext, s: MethodSettings, jitterKind: CheesJitter): CheesState {
  const rows = rowsOf(chain.batch);
  const { dim } = rows;
  const at = chain.row * dim;
  const view = (a: Float64Array): Float64Array => a.subarray(at, at + dim);
  const p = view(rows.p);
  const vel = view(rows.vel);
  const draw: MomentumDraw = { iteration: 0, purpose: Purpose.Momentum, sub: 0, initial: view(rows.initialP), initialRows: rows.initialP, acceptPurpose: Purpose.Accept, acceptUniform: 0 };
  return {
    chain, rows, jitterKind, maxSteps: 2 ** s.maxDepth, maxDeltaH: s.maxDeltaH, trajectoryLength: s.stepSize,
    p, vel, start: startView(rows, chain.row), trajectory: trajectory(chain, p, vel, true, rows.p, draw), draw,
    proposal: view(rows.proposal), proposalVelocity: view(rows.proposalVelocity),
    iteration: 0, stepSize: s.stepSize, steps: 0, stepsDone: 0, jitter: 1, h0: 0, acceptStat: 0, divergent: false, energy: 0,
  };
}

// Whether states[c] is batch row c's for every row of the batch, all over one set of rows: then a
// row-by-row copy between the batch and the rows is one copy of the whole array.
function coversBatch(states: readonly CheesState[]): boolean {
  const { rows } = states[0]!;
  if (states.length !== rows.chains || states[0]!.chain.batch.chains !== rows.chains) return false;
  for (let c = 0; c < states.length; c++) if (states[c]!.rows !== rows || states[c]!.chain.row !== c) return false;
  return true;
}

// After the start is saved: the iteration's momentum draw and jittered number of steps; the
// trajectory runs next, its runner drawing the momentum (a point outside the support ends it early).
function beginTrajectory(s: CheesState, iteration: number, stepSize: number, jitter: number): void {
  s.iteration = iteration;
  s.stepSize = stepSize;
  s.draw.iteration = iteration;
  s.jitter = jitter;
  s.steps = Math.min(s.maxSteps, Math.max(1, Math.ceil((jitter * s.trajectoryLength) / stepSize)));
  s.stepsDone = 0;
  s.trajectory.steps = s.steps;
  s.trajectory.stepSize = stepSize;
}

function start(s: CheesState, iteration: number, stepSize: number): Trajectory {
  saveRow(s.chain, s.start);
  beginTrajectory(s, iteration, stepSize, cheesJitter(s.chain, s.jitterKind, iteration));
  return s.trajectory;
}

// Every chain's start: the jitter drawn once (it is every chain's), the starts copied whole.
function startAll(states: readonly CheesState[], iteration: number, stepSizes: Float64Array, trajectories: Trajectory[]): void {
  const first = states[0];
  if (!first) return;
  const whole = coversBatch(states);
  if (whole) {
    const { rows } = first;
    const { batch } = first.chain;
    rows.startQ.set(batch.q);
    rows.startGrad.set(batch.grad);
    rows.startLp.set(batch.lp);
  }
  const jitter = cheesJitter(first.chain, first.jitterKind, iteration);
  for (let c = 0; c < states.length; c++) {
    const s = states[c]!;
    if (!whole) saveRow(s.chain, s.start);
    beginTrajectory(s, iteration, stepSizes[c]!, jitter);
    trajectories[c] = s.trajectory;
  }
}

// The Metropolis test at the trajectory's end, leaving the chain's row as it is (a trajectory ended
// early is divergent whatever follows); true where the chain returns to its start.
function rejects(s: CheesState): boolean {
  const { chain, p, vel } = s;
  // The start's energy, from the start and the momentum the trajectory drew.
  s.h0 = hamiltonian(s.start.lp, s.start.grad, s.draw.initial, chain.metric, vel);
  s.stepsDone = s.trajectory.taken;
  return test(s, hamiltonian(chain.batch.lp[chain.row]!, chain.grad, p, chain.metric, vel));
}

// The test given the end's energy h (s.h0 the start's): the statistics, and true where the chain returns to its start.
function test(s: CheesState, h: number): boolean {
  const dH = h - s.h0;
  s.divergent = !(dH <= s.maxDeltaH);
  s.acceptStat = s.divergent ? 0 : dH <= 0 ? 1 : Math.exp(-dH);
  // The chain's Accept uniform at this iteration, drawn with the momentum by the trajectory's runner.
  if (s.draw.acceptUniform < s.acceptStat) {
    s.energy = h;
    return false;
  }
  s.energy = s.h0;
  return true;
}

// The proposal (and its velocity, left by the test's energy) kept for the criterion, then the test's outcome.
function finish(s: CheesState): void {
  const back = rejects(s);
  copyRow(s.chain.q, s.proposal);
  copyRow(s.vel, s.proposalVelocity);
  if (back) restoreRow(s.chain, s.start);
}

// Every chain's finish: the tests, the proposals copied whole, then the rejected chains' starts restored.
function finishAll(states: readonly CheesState[]): void {
  const first = states[0];
  if (!first) return;
  if (!coversBatch(states)) {
    for (const s of states) finish(s);
    return;
  }
  const { rows } = first;
  const { rejected, dim } = rows;
  const { batch } = first.chain;
  for (let c = 0; c < states.length; c++) {
    const s = states[c]!;
    const inv = s.chain.metric.inverse;
    const at = c * dim;
    // rejects' energies over the rows (ChEES's metric is diagonal): the same arithmetic, no call a chain.
    s.h0 = rowHamiltonian(rows.startLp[c]!, rows.startGrad, rows.initialP, inv, at, dim, null);
    s.stepsDone = s.trajectory.taken;
    rejected[c] = test(s, rowHamiltonian(batch.lp[c]!, batch.grad, rows.p, inv, at, dim, rows.vel)) ? 1 : 0;
  }
  rows.proposal.set(batch.q);
  rows.proposalVelocity.set(rows.vel);
  const { q, grad, lp } = batch;
  for (let c = 0; c < states.length; c++) {
    if (rejected[c] !== 1) continue;
    for (let i = c * dim, end = i + dim; i < end; i++) {
      q[i] = rows.startQ[i]!;
      grad[i] = rows.startGrad[i]!;
    }
    lp[c] = rows.startLp[c]!;
  }
}

/**
 * hamiltonian() with a diagonal metric over row `at` of batch-wide arrays: −lp + ½·Σ p·(M⁻¹p) in
 * Metric.kinetic's order, +∞ where it is NaN or the row's gradient is not finite; M⁻¹p into vel where
 * given. finishAll's energies, tested equal to finish's chain by chain (chees.test.ts).
 */
function rowHamiltonian(lp: number, grad: Float64Array, p: Float64Array, inv: Float64Array, at: number, dim: number, vel: Float64Array | null): number {
  let sum = 0;
  for (let i = 0; i < dim; i++) {
    const v = inv[i]! * p[at + i]!;
    if (vel) vel[at + i] = v;
    sum += p[at + i]! * v;
  }
  const h = -lp + 0.5 * sum;
  if (Number.isNaN(h)) return Infinity;
  for (let i = at; i < at + dim; i++) if (!Number.isFinite(grad[i]!)) return Infinity;
  return h;
}

/** ChEES-HMC with the given jitter of the trajectory length, under the name given. */
export function cheesMethod(name: string, jitterKind: CheesJitter): SamplingMethod<CheesState> {
  return leapfrogMethod({
    name,
    adaptation: null,
    runAdaptation: cheesAdaptation,
    init: (chain, s) => initState(chain, s, jitterKind),
    leapfrogs: { start, trajectory: (s) => s.trajectory, finish, startAll, finishAll },
    info: (s) => ({ acceptStat: s.acceptStat, treeDepth: 0, nLeapfrog: s.stepsDone, divergent: s.divergent, energy: s.energy }),
  });
}

/** ChEES-HMC with Halton jitter (the paper's default). */
export const chees = cheesMethod("chees", "halton");

/** ChEES-HMC with uniform jitter. */
export const cheesUniform = cheesMethod("chees-uniform", "uniform");

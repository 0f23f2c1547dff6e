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
import { trajectory, type Trajectory } from "../trajectory.ts";
import { cheesAdaptation } from "./chees-adaptation.ts";
import { leapfrogMethod } from "./leapfrog-method.ts";
import { copyRow, drawMomentum, Purpose, restoreRow, rowCopy, saveRow, streamUniform, type ChainContext, type RowCopy, type SamplingMethod } from "./layer.ts";
import type { MethodSettings } from "./method.ts";
import type { CheesJitter, CheesState } from "./chees-state.ts";

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

function initState(chain: ChainContext, s: MethodSettings, jitterKind: CheesJitter): CheesState {
  const dim = chain.q.length;
  const p = new Float64Array(dim);
  const vel = new Float64Array(dim);
  return {
    chain, jitterKind, maxSteps: 2 ** s.maxDepth, maxDeltaH: s.maxDeltaH, trajectoryLength: s.stepSize,
    p, vel, normals: new Float64Array(dim), start: rowCopy(dim), trajectory: trajectory(chain, p, vel, true),
    proposal: new Float64Array(dim), proposalVelocity: new Float64Array(dim),
    iteration: 0, stepSize: s.stepSize, steps: 0, stepsDone: 0, jitter: 1, h0: 0, acceptStat: 0, divergent: false, energy: 0,
  };
}

// The momentum, the start's energy and the iteration's jittered number of steps; the trajectory
// (a point outside the support ends it early) runs next.
function start(s: CheesState, iteration: number, stepSize: number): Trajectory {
  const { chain, p, vel } = s;
  s.iteration = iteration;
  s.stepSize = stepSize;
  saveRow(chain, s.start);
  drawMomentum(chain, iteration, Purpose.Momentum, 0, s.normals, p);
  s.h0 = hamiltonian(s.start.lp, chain.grad, p, chain.metric, vel);
  s.jitter = cheesJitter(chain, s.jitterKind, iteration);
  s.steps = Math.min(s.maxSteps, Math.max(1, Math.ceil((s.jitter * s.trajectoryLength) / stepSize)));
  s.stepsDone = 0;
  s.trajectory.steps = s.steps;
  s.trajectory.stepSize = stepSize;
  return s.trajectory;
}

// The Metropolis test at the trajectory's end; a trajectory ended early is divergent whatever follows.
function finish(s: CheesState): void {
  const { chain, p, vel } = s;
  const lp = chain.batch.lp[chain.row]!;
  s.stepsDone = s.trajectory.taken;
  const h = hamiltonian(lp, chain.grad, p, chain.metric, vel);
  copyRow(chain.q, s.proposal);
  copyRow(vel, s.proposalVelocity);
  const dH = h - s.h0;
  s.divergent = !(dH <= s.maxDeltaH);
  s.acceptStat = s.divergent ? 0 : dH <= 0 ? 1 : Math.exp(-dH);
  const u = streamUniform(chain.key, chain.id, s.iteration, Purpose.Accept, 0, 0, 0);
  if (u < s.acceptStat) s.energy = h;
  else {
    restoreRow(chain, s.start);
    s.energy = s.h0;
  }
}

/** ChEES-HMC with the given jitter of the trajectory length, under the name given. */
export function cheesMethod(name: string, jitterKind: CheesJitter): SamplingMethod<CheesState> {
  return leapfrogMethod({
    name,
    adaptation: null,
    runAdaptation: cheesAdaptation,
    init: (chain, s) => initState(chain, s, jitterKind),
    leapfrogs: { start, trajectory: (s) => s.trajectory, finish },
    info: (s) => ({ acceptStat: s.acceptStat, treeDepth: 0, nLeapfrog: s.stepsDone, divergent: s.divergent, energy: s.energy }),
  });
}

/** ChEES-HMC with Halton jitter (the paper's default). */
export const chees = cheesMethod("chees", "halton");

/** ChEES-HMC with uniform jitter. */
export const cheesUniform = cheesMethod("chees-uniform", "uniform");

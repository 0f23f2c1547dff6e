/**
 * MEADS (Hoffman & Sountsov 2022, "Tuning-free generalized Hamiltonian Monte Carlo"), written
 * against the inference layer's surface (layer.ts): generalized HMC (Horowitz 1991) with one
 * leapfrog step a transition, a persistent momentum partly refreshed each transition
 * (p ← √(1−α)·p + √α·ξ, ξ ~ N(0, M)), a rejection that negates the momentum, and Neal's (2020)
 * non-reversible slice value u ∈ [−1, 1) in place of a fresh uniform: u drifts by δ each
 * transition (wrapped), the proposal is accepted when |u| < exp(−ΔH), and then u is divided by
 * exp(−ΔH) so that it stays uniform. Warmup (meads-adaptation.ts) sets ε, the diagonal metric and
 * α per fold of chains from the other folds' states; afterwards they are fixed.
 */
import { hamiltonian, leapfrogBegin, leapfrogEnd } from "../integrator.ts";
import { drawMomentum, Purpose, restoreRow, rowCopy, saveRow, streamUniform, type ChainContext, type SamplingMethod } from "./layer.ts";
import { meadsAdaptation } from "./meads-adaptation.ts";
import type { MethodSettings } from "./method.ts";
import type { MeadsState } from "./meads-state.ts";

// The slice value's initial draw: the chain's Accept stream at a sub-stream no transition reads.
const SLICE_SUB = 0x300;

function initState(chain: ChainContext, s: MethodSettings): MeadsState {
  const dim = chain.q.length;
  return {
    chain, maxDeltaH: s.maxDeltaH, p: new Float64Array(dim), p0: new Float64Array(dim), vel: new Float64Array(dim), normals: new Float64Array(dim),
    start: rowCopy(dim), hasMomentum: false, u: 2 * streamUniform(chain.key, chain.id, 0, Purpose.Accept, SLICE_SUB, 0, 0) - 1,
    alpha: 1, delta: 0.5, travelSteps: 1, frozen: false, iteration: 0, stepSize: s.stepSize, h0: 0, acceptStat: 0, divergent: false, energy: 0, steps: 0,
  };
}

function begin(s: MeadsState, iteration: number, stepSize: number): boolean {
  s.iteration = iteration;
  s.stepSize = stepSize;
  s.steps = 0;
  // A frozen chain (warmup: its fold's parameters come from the fold it would change) stays put.
  if (s.frozen) {
    s.acceptStat = 1;
    s.divergent = false;
    return false;
  }
  const { chain, p, vel } = s;
  saveRow(chain, s.start);
  drawMomentum(chain, iteration, Purpose.Momentum, 0, s.normals, s.p0);
  if (s.hasMomentum) {
    const keep = Math.sqrt(1 - s.alpha);
    const fresh = Math.sqrt(s.alpha);
    for (let i = 0; i < p.length; i++) p[i] = keep * p[i]! + fresh * s.p0[i]!;
  } else p.set(s.p0);
  s.hasMomentum = true;
  s.p0.set(p);
  s.h0 = hamiltonian(s.start.lp, chain.grad, p, chain.metric, vel);
  leapfrogBegin(chain.q, p, chain.grad, stepSize, chain.metric, vel);
  return true;
}

function advance(s: MeadsState): boolean {
  const { chain, p, vel } = s;
  const lp = chain.batch.lp[chain.row]!;
  leapfrogEnd(p, chain.grad, s.stepSize);
  s.steps++;
  // More steps while the chains travel in (a trajectory that reaches a non-finite density stops there).
  if (s.steps < s.travelSteps && Number.isFinite(lp)) {
    leapfrogBegin(chain.q, p, chain.grad, s.stepSize, chain.metric, vel);
    return true;
  }
  const h = hamiltonian(lp, chain.grad, p, chain.metric, vel);
  const dH = h - s.h0;
  s.divergent = !(dH <= s.maxDeltaH);
  const ratio = s.divergent ? 0 : dH <= 0 ? 1 : Math.exp(-dH);
  s.acceptStat = ratio;
  // u + 1 + δ ≥ 0, so % wraps it into [0, 2).
  s.u = ((s.u + 1 + s.delta) % 2) - 1;
  if (Math.abs(s.u) < ratio) {
    s.u /= ratio;
    s.energy = h;
  } else {
    restoreRow(chain, s.start);
    for (let i = 0; i < p.length; i++) p[i] = -s.p0[i]!;
    s.energy = s.h0;
  }
  return false;
}

/** MEADS: generalized HMC with persistent momentum, adapted per fold of chains in warmup. */
export const meads: SamplingMethod<MeadsState> = {
  name: "meads",
  adaptation: null,
  runAdaptation: meadsAdaptation,
  init: initState,
  begin,
  advance,
  info: (s) => ({ acceptStat: s.acceptStat, treeDepth: 0, nLeapfrog: s.steps, divergent: s.divergent, energy: s.energy }),
};

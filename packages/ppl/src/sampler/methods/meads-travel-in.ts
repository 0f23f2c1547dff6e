/**
 * MEADS's travel-in: the first share of warmup, before the folds adapt. From initial points far
 * from a narrow posterior (uniform in (−2, 2) around scales of 10⁻³), the paper's estimates assume
 * what is not yet true: E[∇∇ᵀ] is the curvature only at stationarity (far away it is inflated by
 * (distance/scale)², so ε = ½/√λ̂ collapses to the distance's reciprocal), and the chains'
 * curvatures differ by orders of magnitude from chain to chain (a scale parameter far from its
 * conditional mode), so one step size a fold is its stiffest chain's and leaves the others where
 * they are (docs/many-chain-hmc.md, "MEADS from random initial points"). So, as ChEES's warmup
 * does, each chain first travels with its own dual-averaged step size, taking ⌈h·10⌉ leapfrog
 * steps a transition (h the iteration's Halton value) with its momentum fully refreshed (α = 1:
 * HMC), under one diagonal metric: nutpie's √(Var(q)/Var(∇)) over the chains, smoothed in log
 * scale. Warmup is for adaptation, so this phase need not leave the target invariant; the folds'
 * cross-fold rule starts when it ends.
 */
import { DualAveraging, defaultDualAveraging } from "../warmup/dual-averaging.ts";
import type { Metric } from "../metric.ts";
import { halton } from "./chees.ts";
import { gradientScaledVariance } from "./gradient-scaled-metric.ts";
import type { MeadsState } from "./meads-state.ts";

/** The share of warmup the chains travel in before the folds adapt. */
export const TRAVEL_SHARE = 0.2;
/** The most leapfrog steps of a travel-in transition (jittered down by the iteration's Halton value). */
export const TRAVEL_STEPS = 10;
// HMC's optimal acceptance (Beskos et al. 2013), as ChEES's.
const TRAVEL_ACCEPT = 0.651;
// The metric's smoothing: the newest estimate's weight falls as 1/k to this floor.
const METRIC_WEIGHT_FLOOR = 0.1;

/** The travel-in's state: each chain's dual averaging and step size, the smoothed metric. */
export interface MeadsTravelIn {
  /** Warmup iterations of the phase (0: none). */
  readonly iterations: number;
  readonly da: DualAveraging[];
  readonly stepSize: Float64Array;
  /** The latest σ² estimate (coordinates it could not estimate keep the one before) and its smoothed log. */
  readonly estimate: Float64Array;
  readonly logVariance: Float64Array;
  updates: number;
}

/** The phase for a run of `chains` chains in `dim` dimensions and `warmup` iterations. */
export function travelIn(chains: number, dim: number, warmup: number, stepSize: number): MeadsTravelIn {
  const da = Array.from({ length: chains }, () => new DualAveraging(Math.log(10 * stepSize), { ...defaultDualAveraging, delta: TRAVEL_ACCEPT }));
  return {
    iterations: Math.floor(TRAVEL_SHARE * warmup), da, stepSize: new Float64Array(chains).fill(stepSize),
    estimate: new Float64Array(dim).fill(1), logVariance: new Float64Array(dim), updates: 0,
  };
}

// Every chain's parameters for the transition of iteration t: its own step size, a full refresh, ⌈h·10⌉ steps.
function assignTravel(p: MeadsTravelIn, chains: readonly MeadsState[], t: number, stepSizes: Float64Array): void {
  const steps = Math.max(1, Math.ceil(halton(t + 1) * TRAVEL_STEPS));
  chains.forEach((s) => {
    s.alpha = 1;
    s.delta = 0.5;
    s.frozen = false;
    s.travelSteps = steps;
  });
  stepSizes.set(p.stepSize);
}

/** Before the first transition: each chain's dual averaging from its searched step size. */
export function startTravel(p: MeadsTravelIn, chains: readonly MeadsState[], stepSizes: Float64Array): void {
  stepSizes.forEach((eps, c) => {
    p.stepSize[c] = eps;
    p.da[c]!.mu = Math.log(10 * eps);
    p.da[c]!.restart();
  });
  assignTravel(p, chains, 0, stepSizes);
}

/** After iteration t − 1's transitions: the metric and each chain's step size for iteration t. */
export function updateTravel(p: MeadsTravelIn, chains: readonly MeadsState[], metrics: readonly Metric[], t: number, stepSizes: Float64Array): void {
  const q = chains.map((s) => s.chain.q);
  const grad = chains.map((s) => s.chain.grad);
  if (gradientScaledVariance(q, grad, p.estimate) > 0) {
    p.updates++;
    const w = Math.max(METRIC_WEIGHT_FLOOR, 1 / p.updates);
    for (let i = 0; i < p.estimate.length; i++) p.logVariance[i] = (1 - w) * p.logVariance[i]! + w * Math.log(p.estimate[i]!);
    const inverse = p.logVariance.map(Math.exp);
    for (const m of metrics) m.trySet(inverse);
  }
  chains.forEach((s, c) => (p.stepSize[c] = p.da[c]!.learn(s.divergent ? 0 : s.acceptStat)));
  assignTravel(p, chains, t, stepSizes);
}

/**
 * ChEES-HMC's warmup, over all chains of a run at once (Hoffman, Radul & Sountsov 2021):
 * - the step size by dual averaging of the harmonic mean of the chains' acceptance probabilities
 *   (divergent chains left out) towards 0.651, the optimal acceptance of HMC in high dimension;
 * - the trajectory length T by Adam (β₁ = 0, β₂ = 0.95, rate 0.025) ascending the ChEES criterion's
 *   gradient in log T: the acceptance-weighted mean over chains of
 *   h·T·(‖q′−q̄′‖² − ‖q₀−q̄₀‖²)·((q′−q̄′)·M⁻¹p′), with q₀ the start, q′ and p′ the proposal before the
 *   Metropolis test, q̄ the means over chains and h the iteration's jitter; each update clipped;
 * - a diagonal inverse metric, shared by every chain: nutpie's σᵢ² = √(Var(qᵢ)/Var(∇ᵢ)) over the
 *   chains' current points and gradients (gradient-scaled-metric.ts), right from points far from
 *   the posterior, smoothed over iterations in log scale.
 * T stays one step for the first tenth of warmup: while the chains still travel from their initial
 * points to the typical set the criterion's gradient is large and positive whatever T, and Adam,
 * carried by it, settles past the criterion's first maximum (on N(0, I) near T ≈ 8.6, not 2.2;
 * docs/many-chain-hmc.md). At warmup's end ε and T are the averaged iterates (weights k^−0.5) and
 * stay fixed.
 */
import { DualAveraging, defaultDualAveraging } from "../warmup/dual-averaging.ts";
import type { Metric } from "../metric.ts";
import { SamplerOptionError } from "../errors.ts";
import type { CheesState } from "./chees-state.ts";
import { gradientScaledVariance } from "./gradient-scaled-metric.ts";
import type { MethodSettings, RunAdaptationMethod } from "./method.ts";

/** The acceptance ChEES's dual averaging targets (optimal for HMC, Beskos et al. 2013). */
export const CHEES_TARGET_ACCEPT = 0.651;
const ADAM_RATE = 0.025;
const ADAM_BETA2 = 0.95;
const ADAM_EPS = 1e-8;
// At most a factor of √2 a step in T: Adam's normalised steps are ~ the rate, this only stops a first wild one.
const LOG_UPDATE_CLIP = Math.log(2) / 2;
const AVERAGE_DECAY = 0.5;
// The metric's smoothing: the newest estimate's weight falls as 1/k to this floor.
const METRIC_WEIGHT_FLOOR = 0.1;
// The share of warmup before T adapts.
const TRAJECTORY_DELAY = 0.2;
// Leapfrog steps of a chain's trajectory (at most, jittered) while the chains travel in.
const TRAVEL_STEPS = 10;

/** The run's ChEES adaptation: the dual averaging, Adam's state, the averages, the shared metric. */
export interface CheesAdaptationState {
  readonly metrics: readonly Metric[];
  /** The metrics without repeats (one where the chains share theirs). */
  readonly distinctMetrics: readonly Metric[];
  readonly da: DualAveraging;
  readonly maxSteps: number;
  stepSize: number;
  logT: number;
  logTBar: number;
  adamV: number;
  count: number;
  /** Warmup iterations before T adapts (each chain with its own step size then), and T's updates so far. */
  readonly trajectoryStart: number;
  /** Each chain's dual averaging and step size, while the chains travel in (the first trajectoryStart iterations). */
  readonly chainDa: DualAveraging[];
  readonly chainStep: Float64Array;
  trajectoryCount: number;
  /** The latest estimate of σ² (coordinates it could not estimate keep the one before) and its smoothed log. */
  readonly estimate: Float64Array;
  readonly logVariance: Float64Array;
  metricUpdates: number;
}

function harmonicMeanAccept(chains: readonly CheesState[]): number {
  let n = 0;
  let inv = 0;
  for (let k = 0; k < chains.length; k++) {
    const c = chains[k]!;
    if (c.divergent) continue;
    n++;
    inv += 1 / c.acceptStat;
  }
  const h = n / inv;
  return Number.isFinite(h) ? h : 0;
}

// The weight of chain c in the criterion: its acceptance, none where it diverged.
const weightOf = (c: CheesState): number => (c.divergent ? 0 : c.acceptStat);

/** The ChEES criterion's gradient in log T, the acceptance-weighted mean over non-divergent chains. */
export function cheesGradient(chains: readonly CheesState[]): number {
  const dim = chains[0]!.proposal.length;
  // The proposals' mean weighted by acceptance and the starts' plain mean, the rows added in chain order.
  const meanProposal = new Float64Array(dim);
  const meanStart = new Float64Array(dim);
  let weights = 0;
  for (let k = 0; k < chains.length; k++) {
    const c = chains[k]!;
    const start = c.start.q;
    for (let i = 0; i < dim; i++) meanStart[i] = meanStart[i]! + start[i]!;
    const w = weightOf(c);
    if (!(w > 0)) continue;
    weights += w;
    const proposal = c.proposal;
    for (let i = 0; i < dim; i++) meanProposal[i] = meanProposal[i]! + w * proposal[i]!;
  }
  for (let i = 0; i < dim; i++) {
    meanProposal[i] = weights > 0 ? meanProposal[i]! / weights : 0;
    meanStart[i] = chains.length > 0 ? meanStart[i]! / chains.length : 0;
  }
  let num = 0;
  let den = 0;
  for (let k = 0; k < chains.length; k++) {
    const c = chains[k]!;
    const w = weightOf(c);
    if (!(w > 0)) continue;
    const { proposal, proposalVelocity } = c;
    const start = c.start.q;
    let sqP = 0;
    let sqS = 0;
    let dot = 0;
    for (let i = 0; i < dim; i++) {
      const dp = proposal[i]! - meanProposal[i]!;
      const ds = start[i]! - meanStart[i]!;
      sqP += dp * dp;
      sqS += ds * ds;
      dot += dp * proposalVelocity[i]!;
    }
    const g = c.jitter * c.trajectoryLength * (sqP - sqS) * dot;
    if (!Number.isFinite(g)) continue;
    num += w * g;
    den += w;
  }
  return den > 0 ? num / den : 0;
}

function updateTrajectory(a: CheesAdaptationState, chains: readonly CheesState[]): void {
  const g = cheesGradient(chains);
  // Adam without momentum (β₁ = 0): the step is g / √v̂, bias-corrected.
  a.adamV = ADAM_BETA2 * a.adamV + (1 - ADAM_BETA2) * g * g;
  const vHat = a.adamV / (1 - ADAM_BETA2 ** a.trajectoryCount);
  const step = (ADAM_RATE * g) / (Math.sqrt(vHat) + ADAM_EPS);
  if (Number.isFinite(step)) a.logT += Math.max(-LOG_UPDATE_CLIP, Math.min(LOG_UPDATE_CLIP, step));
  // Only the longest trajectory bounds T here: a floor of one step would ratchet T up with every
  // excursion of the dual averaging's step size (a trajectory takes at least one step anyway).
  a.logT = Math.min(Math.log(a.maxSteps * a.stepSize), a.logT);
  const weight = a.trajectoryCount ** -AVERAGE_DECAY;
  a.logTBar = (1 - weight) * a.logTBar + weight * a.logT;
}

// T between one step and the most steps a transition takes.
function clampLogT(a: CheesAdaptationState, logT: number, stepSize: number): number {
  return Math.min(Math.log(a.maxSteps * stepSize), Math.max(Math.log(stepSize), logT));
}

// The inverse metric: nutpie's √(Var(q)/Var(∇)) over chains (gradient-scaled-metric.ts), smoothed over
// iterations in log scale (the scales may move by orders of magnitude while the chains travel in).
function updateMetric(a: CheesAdaptationState, chains: readonly CheesState[], q: readonly Float64Array[]): void {
  const { estimate, logVariance } = a;
  if (gradientScaledVariance(q, chains[0]!.chain.batch.gradRows, estimate) === 0) return;
  a.metricUpdates++;
  const w = Math.max(METRIC_WEIGHT_FLOOR, 1 / a.metricUpdates);
  for (let i = 0; i < estimate.length; i++) logVariance[i] = (1 - w) * logVariance[i]! + w * Math.log(estimate[i]!);
  const inverse = logVariance.map(Math.exp);
  // Each distinct metric once: the run's chains share one (sharedMetric) unless the caller gave their own.
  for (const m of a.distinctMetrics) m.trySet(inverse);
}

// One step size for every chain from here on: the lower quartile of the chains' step sizes (the
// harmonic mean of the acceptance the shared one is adapted by is the stiffer chains'), a fresh
// dual averaging from it; T one unit of time in the metric's scale (the chains are near the
// posterior by now and the metric whitens it), below the criterion's first maximum, where Adam climbs.
function shareStepSize(a: CheesAdaptationState, chains: readonly CheesState[], stepSizes: Float64Array): void {
  const sorted = Float64Array.from(a.chainStep).sort();
  const eps = sorted[Math.floor(sorted.length / 4)]!;
  a.stepSize = eps;
  a.da.mu = Math.log(10 * eps);
  a.da.restart();
  a.logT = clampLogT(a, 0, eps);
  for (const c of chains) c.trajectoryLength = Math.exp(a.logT);
  stepSizes.fill(eps);
}

// While the chains travel in from their initial points, at distances and curvatures that differ by
// orders of magnitude from chain to chain (a scale parameter far from its conditional mode), one
// shared step size is the one of the stiffest chain and leaves the others in place: each chain
// takes one leapfrog step an iteration with its own dual-averaged step size. At the phase's end the
// shared step size starts from their median and the metric's smoothing forgets the transient.
function travelIn(a: CheesAdaptationState, chains: readonly CheesState[], stepSizes: Float64Array): void {
  for (let k = 0; k < chains.length; k++) {
    const c = chains[k]!;
    const eps = a.chainDa[k]!.learn(c.divergent ? 0 : c.acceptStat);
    a.chainStep[k] = eps;
    c.trajectoryLength = TRAVEL_STEPS * eps;
  }
  stepSizes.set(a.chainStep);
  if (a.count < a.trajectoryStart) return;
  a.metricUpdates = 0;
  shareStepSize(a, chains, stepSizes);
}

/** ChEES's warmup over every chain of a run. */
export const cheesAdaptation: RunAdaptationMethod<CheesAdaptationState, CheesState> = {
  sharedMetric: true,
  init(metrics: readonly Metric[], s: MethodSettings): CheesAdaptationState {
    if (metrics.some((m) => m.kind !== "diag")) throw new SamplerOptionError("metric: ChEES adapts a diagonal metric; use metric \"diag\"");
    const dim = metrics[0]?.dim ?? 0;
    return {
      metrics, distinctMetrics: [...new Set(metrics)], da: new DualAveraging(Math.log(10 * s.stepSize), { ...defaultDualAveraging, delta: CHEES_TARGET_ACCEPT }),
      maxSteps: 2 ** s.maxDepth, stepSize: s.stepSize, logT: Math.log(s.stepSize), logTBar: 0, adamV: 0, count: 0, trajectoryStart: Math.floor(TRAJECTORY_DELAY * s.warmup), trajectoryCount: 0,
      estimate: new Float64Array(dim).fill(1), logVariance: new Float64Array(dim), metricUpdates: 0,
      chainDa: metrics.map(() => new DualAveraging(Math.log(10 * s.stepSize), { ...defaultDualAveraging, delta: CHEES_TARGET_ACCEPT })), chainStep: new Float64Array(metrics.length).fill(s.stepSize),
    };
  },
  start(a, chains, stepSizes) {
    // Every chain searched a step size from its own point: its own dual averaging starts there
    // while the chains travel in, the shared one from their median.
    stepSizes.forEach((eps, k) => {
      a.chainStep[k] = eps;
      a.chainDa[k]!.mu = Math.log(10 * eps);
      a.chainDa[k]!.restart();
    });
    shareStepSize(a, chains, stepSizes);
    if (a.trajectoryStart > 0) {
      chains.forEach((c, k) => (c.trajectoryLength = TRAVEL_STEPS * a.chainStep[k]!));
      stepSizes.set(a.chainStep);
    }
  },
  update(a, chains, q, stepSizes) {
    a.count++;
    updateMetric(a, chains, q);
    if (a.count <= a.trajectoryStart) {
      travelIn(a, chains, stepSizes);
      return;
    }
    a.stepSize = a.da.learn(harmonicMeanAccept(chains));
    a.trajectoryCount++;
    updateTrajectory(a, chains);
    const t = Math.exp(a.logT);
    for (const c of chains) c.trajectoryLength = t;
    stepSizes.fill(a.stepSize);
  },
  final(a, chains, stepSizes) {
    const eps = a.trajectoryCount > 0 ? a.da.finalStepSize() : a.stepSize;
    const t = a.trajectoryCount > 0 ? Math.exp(clampLogT(a, a.logTBar, eps)) : Math.exp(a.logT);
    for (const c of chains) c.trajectoryLength = t;
    stepSizes.fill(eps);
  },
};

/**
 * ChEES-HMC's warmup, over all chains of a run at once (Hoffman, Radul & Sountsov 2021):
 * - the step size by dual averaging of the harmonic mean of the chains' acceptance probabilities
 *   (divergent chains left out) towards 0.651, the optimal acceptance of HMC in high dimension;
 * - the trajectory length T by Adam (β₁ = 0, β₂ = 0.95, rate 0.025) ascending the ChEES criterion's
 *   gradient in log T: the acceptance-weighted mean over chains of
 *   h·T·(‖q′−q̄′‖² − ‖q₀−q̄₀‖²)·((q′−q̄′)·M⁻¹p′), with q₀ the start, q′ and p′ the proposal before the
 *   Metropolis test, q̄ the means over chains and h the iteration's jitter; each update clipped;
 * - a diagonal inverse metric: the variance over chains of their current points (Welford over the
 *   chains), smoothed over iterations and regularised as Stan's, shared by every chain.
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
const TRAJECTORY_DELAY = 0.1;

/** The run's ChEES adaptation: the dual averaging, Adam's state, the averages, the shared metric. */
export interface CheesAdaptationState {
  readonly metrics: readonly Metric[];
  readonly da: DualAveraging;
  readonly maxSteps: number;
  stepSize: number;
  logT: number;
  logTBar: number;
  adamV: number;
  count: number;
  /** Warmup iterations before T adapts, and T's updates so far. */
  readonly trajectoryStart: number;
  trajectoryCount: number;
  readonly variance: Float64Array;
  readonly mean: Float64Array;
  readonly m2: Float64Array;
  metricUpdates: number;
}

function harmonicMeanAccept(chains: readonly CheesState[]): number {
  let n = 0;
  let inv = 0;
  for (const c of chains) {
    if (c.divergent) continue;
    n++;
    inv += 1 / c.acceptStat;
  }
  const h = n / inv;
  return Number.isFinite(h) ? h : 0;
}

// Mean over chains of q (weights w or all 1) into out.
function meanOver(rows: readonly Float64Array[], w: Float64Array | null, out: Float64Array): void {
  out.fill(0);
  let total = 0;
  rows.forEach((r, c) => {
    const wc = w ? w[c]! : 1;
    if (!(wc > 0)) return;
    total += wc;
    for (let i = 0; i < out.length; i++) out[i] = out[i]! + wc * r[i]!;
  });
  for (let i = 0; i < out.length; i++) out[i] = total > 0 ? out[i]! / total : 0;
}

/** The ChEES criterion's gradient in log T, the acceptance-weighted mean over non-divergent chains. */
export function cheesGradient(chains: readonly CheesState[]): number {
  const dim = chains[0]!.proposal.length;
  const w = new Float64Array(chains.length);
  chains.forEach((c, k) => (w[k] = c.divergent ? 0 : c.acceptStat));
  const meanProposal = new Float64Array(dim);
  const meanStart = new Float64Array(dim);
  meanOver(chains.map((c) => c.proposal), w, meanProposal);
  meanOver(chains.map((c) => c.start.q), null, meanStart);
  let num = 0;
  let den = 0;
  chains.forEach((c, k) => {
    if (!(w[k]! > 0)) return;
    let sqP = 0;
    let sqS = 0;
    let dot = 0;
    for (let i = 0; i < dim; i++) {
      const dp = c.proposal[i]! - meanProposal[i]!;
      const ds = c.start.q[i]! - meanStart[i]!;
      sqP += dp * dp;
      sqS += ds * ds;
      dot += dp * c.proposalVelocity[i]!;
    }
    const g = c.jitter * c.trajectoryLength * (sqP - sqS) * dot;
    if (!Number.isFinite(g)) return;
    num += w[k]! * g;
    den += w[k]!;
  });
  return den > 0 ? num / den : 0;
}

function updateTrajectory(a: CheesAdaptationState, chains: readonly CheesState[]): void {
  const g = cheesGradient(chains);
  // Adam without momentum (β₁ = 0): the step is g / √v̂, bias-corrected.
  a.adamV = ADAM_BETA2 * a.adamV + (1 - ADAM_BETA2) * g * g;
  const vHat = a.adamV / (1 - ADAM_BETA2 ** a.trajectoryCount);
  const step = (ADAM_RATE * g) / (Math.sqrt(vHat) + ADAM_EPS);
  if (Number.isFinite(step)) a.logT += Math.max(-LOG_UPDATE_CLIP, Math.min(LOG_UPDATE_CLIP, step));
  a.logT = clampLogT(a, a.logT, a.stepSize);
  const weight = a.trajectoryCount ** -AVERAGE_DECAY;
  a.logTBar = (1 - weight) * a.logTBar + weight * a.logT;
}

// T between one step and the most steps a transition takes.
function clampLogT(a: CheesAdaptationState, logT: number, stepSize: number): number {
  return Math.min(Math.log(a.maxSteps * stepSize), Math.max(Math.log(stepSize), logT));
}

// The variance over chains of their current points (Welford), smoothed and regularised as Stan's.
function updateMetric(a: CheesAdaptationState, q: readonly Float64Array[]): void {
  const n = q.length;
  if (n < 2) return;
  const { mean, m2, variance } = a;
  mean.fill(0);
  m2.fill(0);
  q.forEach((row, k) => {
    for (let i = 0; i < mean.length; i++) {
      const d = row[i]! - mean[i]!;
      mean[i] = mean[i]! + d / (k + 1);
      m2[i] = m2[i]! + d * (row[i]! - mean[i]!);
    }
  });
  a.metricUpdates++;
  const w = Math.max(METRIC_WEIGHT_FLOOR, 1 / a.metricUpdates);
  const inverse = new Float64Array(mean.length);
  for (let i = 0; i < mean.length; i++) {
    const v = m2[i]! / (n - 1);
    variance[i] = a.metricUpdates === 1 ? v : (1 - w) * variance[i]! + w * v;
    inverse[i] = (n / (n + 5)) * variance[i]! + 1e-3 * (5 / (n + 5));
  }
  for (const m of a.metrics) m.trySet(inverse);
}

/** ChEES's warmup over every chain of a run. */
export const cheesAdaptation: RunAdaptationMethod<CheesAdaptationState, CheesState> = {
  init(metrics: readonly Metric[], s: MethodSettings): CheesAdaptationState {
    if (metrics.some((m) => m.kind !== "diag")) throw new SamplerOptionError("metric: ChEES adapts a diagonal metric; use metric \"diag\"");
    const dim = metrics[0]?.dim ?? 0;
    return {
      metrics, da: new DualAveraging(Math.log(10 * s.stepSize), { ...defaultDualAveraging, delta: CHEES_TARGET_ACCEPT }),
      maxSteps: 2 ** s.maxDepth, stepSize: s.stepSize, logT: Math.log(s.stepSize), logTBar: 0, adamV: 0, count: 0, trajectoryStart: Math.floor(TRAJECTORY_DELAY * s.warmup), trajectoryCount: 0,
      variance: new Float64Array(dim), mean: new Float64Array(dim), m2: new Float64Array(dim), metricUpdates: 0,
    };
  },
  start(a, chains, stepSizes) {
    // Every chain searched a step size from its own point; the run starts from their median.
    const sorted = Float64Array.from(stepSizes).sort();
    const eps = sorted[Math.floor(sorted.length / 2)]!;
    a.stepSize = eps;
    a.da.mu = Math.log(10 * eps);
    a.da.restart();
    a.logT = Math.log(eps);
    for (const c of chains) c.trajectoryLength = eps;
    stepSizes.fill(eps);
  },
  update(a, chains, q, stepSizes) {
    a.count++;
    a.stepSize = a.da.learn(harmonicMeanAccept(chains));
    if (a.count > a.trajectoryStart) {
      a.trajectoryCount++;
      updateTrajectory(a, chains);
    } else a.logT = Math.log(a.stepSize);
    updateMetric(a, q);
    const t = Math.exp(a.logT);
    for (const c of chains) c.trajectoryLength = t;
    stepSizes.fill(a.stepSize);
  },
  final(a, chains, stepSizes) {
    const eps = a.count > 0 ? a.da.finalStepSize() : a.stepSize;
    const t = a.trajectoryCount > 0 ? Math.exp(clampLogT(a, a.logTBar, eps)) : Math.exp(a.logT);
    for (const c of chains) c.trajectoryLength = t;
    stepSizes.fill(eps);
  },
};

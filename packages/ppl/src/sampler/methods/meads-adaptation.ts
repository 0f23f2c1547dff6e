/**
 * MEADS's warmup over all chains of a run at once (Hoffman & Sountsov 2022, Algorithm 3):
 * the chains are split into K = 4 folds (chain c in fold c mod K, the assignment shuffled every K
 * iterations with a permutation from a stream no chain owns). Before iteration t, for each fold j:
 * - σⱼ: the standard deviation over fold j's chains of their points;
 * - εⱼ = min(1, ½ / √λ̂(∇·σⱼ)): the step size from the largest eigenvalue of the second moment of
 *   the fold's gradients in the σⱼ-scaled coordinates;
 * - γⱼ = max(1 / √λ̂((q − q̄ⱼ)/σⱼ), 1 / ((t+1)·εⱼ)): the damping, from the largest eigenvalue of
 *   the fold's scaled covariance, kept high early on; αⱼ = 1 − exp(−2·εⱼ·γⱼ), δⱼ = αⱼ/2.
 * Fold k transitions with fold k−1's (mod K) ε, σ² as its diagonal inverse metric, α and δ, so that
 * its kernel does not depend on its own chains; fold t mod K stays put at iteration t, which breaks
 * the cycle k ← k−1 ← … ← k, so every iteration is a composition of kernels that each leave the
 * target invariant. λ̂ is the paper's estimate of the largest eigenvalue of E[xxᵀ] from n rows:
 * (Σᵢ≠ⱼ (xᵢ·xⱼ)² / (n(n−1))) / (Σᵢ ‖xᵢ‖² / n), i.e. tr(Σ²)/tr(Σ). At warmup's end every chain
 * samples with the means over the folds of ε, σ², α and δ.
 * Before the folds adapt, the first fifth of warmup is a travel-in phase (meads-travel-in.ts): the
 * estimates above hold near stationarity only, and from initial points far from a narrow posterior
 * they make ε collapse; each chain first travels with its own step size. The damping's floor
 * 1/((t+1)·ε) counts t from warmup's start.
 */
import type { Metric } from "../metric.ts";
import { SamplerOptionError } from "../errors.ts";
import { Purpose, streamUniform } from "./layer.ts";
import { startTravel, travelIn, updateTravel, type MeadsTravelIn } from "./meads-travel-in.ts";
import type { MeadsState } from "./meads-state.ts";
import type { MethodSettings, RunAdaptationMethod } from "./method.ts";

/** Folds of chains (the paper's K). */
export const MEADS_FOLDS = 4;
/** The step size's multiplier of 1/√λ̂ (the paper's 0.5). */
const STEP_MULTIPLIER = 0.5;
// The fold shuffle's uniforms: chain id 0's StepSize stream at a sub-stream of its own.
const SHUFFLE_SUB = 0x200;

/** The run's MEADS adaptation: the fold of each chain and each fold's parameters. */
export interface MeadsAdaptationState {
  readonly metrics: readonly Metric[];
  readonly dim: number;
  /** The iteration the parameters are for (0-based). */
  t: number;
  foldOf: Int32Array;
  /** Per fold: ε, the inverse metric σ², α. */
  readonly eps: Float64Array;
  readonly inverse: Float64Array[];
  readonly alpha: Float64Array;
  /** The first share of warmup, each chain with its own step size (meads-travel-in.ts). */
  readonly travel: MeadsTravelIn;
}

/** The paper's estimate of the largest eigenvalue of E[xxᵀ] from the rows x (tr(Σ²)/tr(Σ), unbiased in both). */
export function maxEigenvalue(rows: readonly Float64Array[]): number {
  const n = rows.length;
  if (n < 2) return NaN;
  let trace = 0;
  let off = 0;
  for (let i = 0; i < n; i++) {
    const a = rows[i]!;
    for (let j = i; j < n; j++) {
      const b = rows[j]!;
      let dot = 0;
      for (let k = 0; k < a.length; k++) dot += a[k]! * b[k]!;
      if (i === j) trace += dot;
      else off += 2 * dot * dot;
    }
  }
  return off / (n * (n - 1)) / (trace / n);
}

function shuffle(a: MeadsAdaptationState, chains: readonly MeadsState[]): void {
  const n = chains.length;
  const order = Int32Array.from({ length: n }, (_, c) => c);
  const key = chains[0]!.chain.key;
  for (let i = n - 1; i > 0; i--) {
    const u = streamUniform(key, 0, a.t, Purpose.StepSize, SHUFFLE_SUB, i >> 1, (i & 1) as 0 | 1);
    const j = Math.min(i, Math.floor(u * (i + 1)));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  order.forEach((c, position) => (a.foldOf[c] = position % MEADS_FOLDS));
}

// One fold's σ², ε and α from its chains' points and gradients, before iteration t.
function foldParameters(a: MeadsAdaptationState, chains: readonly MeadsState[], members: readonly number[], j: number): void {
  const n = members.length;
  const mean = new Float64Array(a.dim);
  for (const c of members) chains[c]!.chain.q.forEach((x, i) => (mean[i] = mean[i]! + x / n));
  // σ² the variance over the fold's chains, as the paper's (no regularisation towards 10⁻³: with
  // posterior variances of 10⁻⁶, as sblrc-blr's, it would set the metric's scale); a fold whose
  // variance is not positive in some coordinate (its chains at one point) keeps its metric.
  const inverse = new Float64Array(a.dim);
  for (let i = 0; i < a.dim; i++) {
    let m2 = 0;
    for (const c of members) m2 += (chains[c]!.chain.q[i]! - mean[i]!) ** 2;
    inverse[i] = m2 / (n - 1);
  }
  if (inverse.every((v) => Number.isFinite(v) && v > 0)) a.inverse[j] = inverse;
  const sd = a.inverse[j]!.map(Math.sqrt);
  const lambdaGrad = maxEigenvalue(members.map((c) => chains[c]!.chain.grad.map((g, i) => g * sd[i]!)));
  const lambdaQ = maxEigenvalue(members.map((c) => chains[c]!.chain.q.map((x, i) => (x - mean[i]!) / sd[i]!)));
  // At most 1 in the metric's scale (the paper's cap).
  const eps = Math.min(1, STEP_MULTIPLIER / Math.sqrt(lambdaGrad));
  // A fold whose gradients give no estimate (non-finite) keeps its step size.
  if (Number.isFinite(eps) && eps > 0) a.eps[j] = eps;
  const gamma = Math.max(1 / Math.sqrt(lambdaQ), 1 / ((a.t + 1) * a.eps[j]!));
  const alpha = 1 - Math.exp(-2 * a.eps[j]! * gamma);
  if (Number.isFinite(alpha) && alpha > 0) a.alpha[j] = alpha;
}

// Every fold's parameters for iteration a.t, handed to the chains of the next fold; fold t mod K frozen.
function assign(a: MeadsAdaptationState, chains: readonly MeadsState[], stepSizes: Float64Array): void {
  const members = Array.from({ length: MEADS_FOLDS }, () => [] as number[]);
  a.foldOf.forEach((k, c) => members[k]!.push(c));
  members.forEach((m, j) => foldParameters(a, chains, m, j));
  const frozen = a.t % MEADS_FOLDS;
  chains.forEach((s, c) => {
    const k = a.foldOf[c]!;
    const j = (k + MEADS_FOLDS - 1) % MEADS_FOLDS;
    stepSizes[c] = a.eps[j]!;
    a.metrics[c]!.trySet(a.inverse[j]!);
    s.alpha = a.alpha[j]!;
    s.delta = s.alpha / 2;
    s.frozen = k === frozen;
    s.travelSteps = 1;
  });
}

/** MEADS's warmup over every chain of a run. */
export const meadsAdaptation: RunAdaptationMethod<MeadsAdaptationState, MeadsState> = {
  init(metrics: readonly Metric[], s: MethodSettings): MeadsAdaptationState {
    if (metrics.some((m) => m.kind !== "diag")) throw new SamplerOptionError("metric: MEADS adapts a diagonal metric; use metric \"diag\"");
    if (metrics.length < 2 * MEADS_FOLDS || metrics.length % MEADS_FOLDS !== 0) {
      throw new SamplerOptionError(`chains: MEADS splits the chains into ${MEADS_FOLDS} folds of at least 2; run a multiple of ${MEADS_FOLDS} chains, at least ${2 * MEADS_FOLDS} (got ${metrics.length})`);
    }
    const dim = metrics[0]!.dim;
    return {
      metrics, dim, t: 0, foldOf: Int32Array.from(metrics, (_, c) => c % MEADS_FOLDS),
      eps: new Float64Array(MEADS_FOLDS).fill(s.stepSize), inverse: Array.from({ length: MEADS_FOLDS }, () => new Float64Array(dim).fill(1)), alpha: new Float64Array(MEADS_FOLDS).fill(1),
      travel: travelIn(metrics.length, dim, s.warmup, s.stepSize),
    };
  },
  start(a, chains, stepSizes) {
    a.t = 0;
    if (a.travel.iterations > 0) startTravel(a.travel, chains, stepSizes);
    else assign(a, chains, stepSizes);
  },
  update(a, chains, _q, stepSizes) {
    a.t++;
    if (a.t < a.travel.iterations) return updateTravel(a.travel, chains, a.metrics, a.t, stepSizes);
    if (a.t % MEADS_FOLDS === 0) shuffle(a, chains);
    assign(a, chains, stepSizes);
  },
  final(a, chains, stepSizes) {
    const eps = a.eps.reduce((x, y) => x + y, 0) / MEADS_FOLDS;
    const alpha = a.alpha.reduce((x, y) => x + y, 0) / MEADS_FOLDS;
    const inverse = new Float64Array(a.dim);
    for (const v of a.inverse) v.forEach((x, i) => (inverse[i] = inverse[i]! + x / MEADS_FOLDS));
    for (const m of a.metrics) m.trySet(inverse);
    chains.forEach((s) => {
      s.alpha = alpha;
      s.delta = alpha / 2;
      s.frozen = false;
      s.travelSteps = 1;
    });
    stepSizes.fill(eps);
  },
};

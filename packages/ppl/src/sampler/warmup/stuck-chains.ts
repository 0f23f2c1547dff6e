/**
 * Chains that cannot move. A chain that starts where the log density's gradient is unrelated to the
 * density (an ODE state below the solver's resolution, a region of rounding noise) adapts its step
 * size down by orders of magnitude, runs every tree to the maximum depth and stays where it started
 * for the whole run: warmup cannot bring it back, and its draws spoil every estimate. At the end of
 * each warmup window the driver hands this module what each chain did over the window; the chains it
 * names are re-initialised from a fresh random point with their adaptation restarted, and at the end
 * of the run any chain still stuck is reported.
 *
 * A chain is stuck when, over a window, either
 * - its step size is `stepSizeRatio` (1e-3) or more below the median of the other chains' step sizes
 *   (step sizes under different metrics differ by a few times between healthy chains, never by three
 *   orders of magnitude), or
 * - its trees reached the maximum depth in at least `maxDepthShare` (90%) of the window's iterations
 *   while it moved `movementRatio` (1e-2) or more below the median of the other chains' movements,
 *   or not at all (below `minMovement`) when it has no others to compare with.
 * Comparisons are with the other chains' median, so a minority of stuck chains cannot hide each
 * other; when most chains are stuck the comparison cannot tell, and only the frozen test applies.
 */

/** What one chain did over one warmup window (or over the sampling draws). */
export interface ChainWindowEvidence {
  /** The step size the chain ends the window with. */
  readonly stepSize: number;
  /** Iterations of the window. */
  readonly iterations: number;
  /** Share of those iterations whose tree reached the maximum depth, in [0, 1]. */
  readonly maxDepthShare: number;
  /** How far the chain moved: the largest range of one unconstrained coordinate over the window. */
  readonly movement: number;
}

/** Thresholds of {@link findStuckChains}. */
export interface StuckChainSettings {
  /** A step size this many times the other chains' median or less has collapsed (1e-3). */
  readonly stepSizeRatio: number;
  /** Share of a window's trees at the maximum depth from which a chain counts as at the maximum (0.9). */
  readonly maxDepthShare: number;
  /** A movement this many times the other chains' median or less does not count as moving (1e-2). */
  readonly movementRatio: number;
  /** A movement at most this does not count as moving, whatever the other chains did (0). */
  readonly minMovement: number;
}

/** The thresholds the driver uses. */
export const defaultStuckChainSettings: StuckChainSettings = { stepSizeRatio: 1e-3, maxDepthShare: 0.9, movementRatio: 1e-2, minMovement: 0 };

/** Why a chain counts as stuck. */
export type StuckReason = "step size" | "frozen";

/** A chain that cannot move, and the numbers that say so. */
export interface StuckChain {
  /** Row of the chain among the evidence. */
  readonly chain: number;
  readonly reason: StuckReason;
  readonly stepSize: number;
  /** The median step size of the other chains (NaN when there are none). */
  readonly othersStepSize: number;
  readonly maxDepthShare: number;
  readonly movement: number;
  /** The median movement of the other chains (NaN when there are none). */
  readonly othersMovement: number;
}

/** The chains among `evidence` (one entry per chain, same window) that cannot move. */
export function findStuckChains(evidence: readonly ChainWindowEvidence[], settings: StuckChainSettings = defaultStuckChainSettings): StuckChain[] {
  const stuck: StuckChain[] = [];
  evidence.forEach((e, c) => {
    const others = evidence.filter((_, k) => k !== c);
    const othersStepSize = median(others.map((o) => o.stepSize).filter((v) => Number.isFinite(v) && v > 0));
    const othersMovement = median(others.map((o) => o.movement).filter((v) => Number.isFinite(v)));
    const collapsed = !(e.stepSize > settings.stepSizeRatio * othersStepSize) && Number.isFinite(othersStepSize);
    const still = e.movement <= settings.minMovement || (Number.isFinite(othersMovement) && e.movement <= settings.movementRatio * othersMovement);
    const frozen = e.iterations > 0 && e.maxDepthShare >= settings.maxDepthShare && still;
    if (!collapsed && !frozen) return;
    stuck.push({ chain: c, reason: collapsed ? "step size" : "frozen", stepSize: e.stepSize, othersStepSize, maxDepthShare: e.maxDepthShare, movement: e.movement, othersMovement });
  });
  return stuck;
}

/**
 * The evidence of a finished run's sampling draws, for the end-of-run check: each chain's step size
 * and the share of its trees at the maximum depth. The movement is not measured (NaN), so only the
 * step-size test applies: a run's result need not keep its draws.
 */
export function samplingEvidence(stepSizes: readonly number[], treeDepths: readonly ArrayLike<number>[], maxDepth: number): ChainWindowEvidence[] {
  return stepSizes.map((stepSize, c) => {
    const depths = treeDepths[c] ?? [];
    let atMax = 0;
    for (let i = 0; i < depths.length; i++) if (depths[i]! >= maxDepth) atMax++;
    return { stepSize, iterations: depths.length, maxDepthShare: depths.length > 0 ? atMax / depths.length : 0, movement: NaN };
  });
}

/** Collects one chain's {@link ChainWindowEvidence} iteration by iteration; reset at each window's start. */
export class WindowEvidence {
  private readonly low: Float64Array;
  private readonly high: Float64Array;
  private count = 0;
  private atMax = 0;

  constructor(dim: number) {
    this.low = new Float64Array(dim);
    this.high = new Float64Array(dim);
  }

  /** Adds one iteration: the chain's position after it and its tree depth. */
  add(q: ArrayLike<number>, treeDepth: number, maxDepth: number): void {
    for (let i = 0; i < this.low.length; i++) {
      const v = q[i]!;
      if (this.count === 0 || v < this.low[i]!) this.low[i] = v;
      if (this.count === 0 || v > this.high[i]!) this.high[i] = v;
    }
    if (treeDepth >= maxDepth) this.atMax++;
    this.count++;
  }

  /** The evidence so far, with the step size the chain ends the window with. */
  evidence(stepSize: number): ChainWindowEvidence {
    let movement = 0;
    for (let i = 0; i < this.low.length; i++) movement = Math.max(movement, this.high[i]! - this.low[i]!);
    return { stepSize, iterations: this.count, maxDepthShare: this.count > 0 ? this.atMax / this.count : 0, movement: this.count > 0 ? movement : NaN };
  }

  /** The window so far as data, to continue it elsewhere (another thread). */
  state(): { readonly low: Float64Array; readonly high: Float64Array; readonly count: number; readonly atMax: number } {
    return { low: Float64Array.from(this.low), high: Float64Array.from(this.high), count: this.count, atMax: this.atMax };
  }

  /** Continues from a state that state() gave (of the same dimension). */
  restore(s: { readonly low: ArrayLike<number>; readonly high: ArrayLike<number>; readonly count: number; readonly atMax: number }): void {
    this.low.set(s.low);
    this.high.set(s.high);
    this.count = s.count;
    this.atMax = s.atMax;
  }

  /** Starts a new window. */
  reset(): void {
    this.count = 0;
    this.atMax = 0;
  }
}

/** Where in warmup a stuck chain may still be re-initialised, and how often. */
export interface ReinitialisationPolicy {
  /** Warmup iterations that must remain after the re-initialisation for a fresh adaptation (150: Stan's smallest full schedule). */
  readonly minWarmupLeft: number;
  /** Re-initialisations a chain may have in one run (3). */
  readonly maxPerChain: number;
}

/** The policy the driver uses. */
export const defaultReinitialisationPolicy: ReinitialisationPolicy = { minWarmupLeft: 150, maxPerChain: 3 };

/** Which stuck chains to re-initialise after warmup iteration `iteration` (0-based) of `warmup`, given each chain's re-initialisations so far. */
export function chainsToReinitialise(
  stuck: readonly StuckChain[],
  iteration: number,
  warmup: number,
  reinitialised: readonly number[],
  policy: ReinitialisationPolicy = defaultReinitialisationPolicy,
): StuckChain[] {
  if (warmup - (iteration + 1) < policy.minWarmupLeft) return [];
  return stuck.filter((s) => (reinitialised[s.chain] ?? 0) < policy.maxPerChain);
}

/** The run note for a chain re-initialised after warmup iteration `iteration` (0-based); chainId is 1-based as the user numbers chains. */
export function reinitialisedNote(s: StuckChain, chainId: number, iteration: number): string {
  return `chain ${chainId}: ${symptom(s)} by warmup iteration ${iteration + 1}; re-initialised from a fresh random point, its adaptation restarted for the remaining warmup`;
}

/** The end-of-run warning for a chain still stuck; chainId is 1-based as the user numbers chains. */
export function stuckWarning(s: StuckChain, chainId: number): string {
  return (
    `chain ${chainId} looks stuck: ${symptom(s)}; its draws are unlikely to represent the posterior. ` +
    `Start the chains nearer the posterior (--init 0.5, or an init file), give warmup more iterations, or check the model where this chain sits (an ODE solved to too loose a tolerance, a density evaluated in a region of rounding noise)`
  );
}

// What was seen, in the user's terms.
function symptom(s: StuckChain): string {
  const depth = `${Math.round(100 * s.maxDepthShare)}% of its trees at the maximum depth`;
  if (s.reason === "step size") return `its step size collapsed to ${s.stepSize.toExponential(1)} (the other chains' median ${s.othersStepSize.toPrecision(2)}), ${depth}`;
  const others = Number.isFinite(s.othersMovement) ? ` (the other chains' median ${s.othersMovement.toPrecision(2)})` : "";
  return `it moved ${s.movement.toExponential(1)} on the unconstrained scale${others} with ${depth}`;
}

// The median of finite values; NaN for none.
function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 === 1 ? v[m]! : (v[m - 1]! + v[m]!) / 2;
}

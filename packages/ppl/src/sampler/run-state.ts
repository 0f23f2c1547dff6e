/**
 * Where some chains of a run stand between two iterations, as data: what a run hands over to
 * continue them elsewhere (another thread, the CPU after a runner, a runner after the CPU).
 */
import type { BatchedDensity } from "./density.ts";
import type { MetricState } from "./metric.ts";
import type { ChainStats } from "./result.ts";
import type { ChainAdaptationState } from "./warmup/adaptation.ts";
import type { StuckWatchState } from "./warmup/stuck-watch.ts";

/** All that one chain of a run carries from one iteration to the next, and what it has drawn. */
export interface ChainState {
  readonly q: Float64Array;
  readonly lp: number;
  readonly grad: Float64Array;
  readonly evaluations: number;
  readonly stepSize: number;
  readonly metric: MetricState;
  /** Warmup's adaptation state (absent for a method without adaptation). */
  readonly adaptation?: ChainAdaptationState;
  /** The current warmup window's stuck-chain evidence and the chain's re-initialisations (absent: none yet). */
  readonly stuck?: StuckWatchState;
  /** The run's whole draws array and statistics of the chain (filled up to the iterations done). */
  readonly draws: Float64Array;
  readonly stats: ChainStats;
}

/** Some chains of a run between two iterations, to continue them as a run of their own (in another thread). */
export interface RunState {
  readonly iteration: number;
  readonly started: boolean;
  readonly warmupMs: number;
  readonly samplingMs: number;
  readonly chains: readonly ChainState[];
}

/** A state whose draws and statistics are copies: a trial run restored from it writes into its own. */
export function detached(state: RunState): RunState {
  const copyStats = (st: ChainStats): ChainStats => ({
    lp: st.lp.slice(), acceptStat: st.acceptStat.slice(), stepSize: st.stepSize.slice(), treeDepth: st.treeDepth.slice(),
    nLeapfrog: st.nLeapfrog.slice(), divergent: st.divergent.slice(), energy: st.energy.slice(),
  });
  return { ...state, chains: state.chains.map((ch) => ({ ...ch, draws: ch.draws.slice(), stats: copyStats(ch.stats) })) };
}

/**
 * The state with every chain's log density and gradient evaluated again on `density`: a runner's
 * were computed in its own float type, and between its blocks its gradient may be a block old.
 * The CPU sampler's next transition starts from these.
 */
export function reevaluated(state: RunState, density: BatchedDensity): RunState {
  const chains: ChainState[] = state.chains.map((ch) => {
    const lp = new Float64Array(1);
    const grad = new Float64Array(ch.q.length);
    density.logpGrad(ch.q, lp, grad);
    return { ...ch, lp: lp[0]!, grad, evaluations: ch.evaluations + 1 };
  });
  return { ...state, chains };
}

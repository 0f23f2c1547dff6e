/**
 * When the calling thread of a threaded run enlists its workers: from its own work so far, the
 * projected work left and the share of a core it got.
 *
 * A worker costs about half a second of CPU to start (module loading, the density's compile, V8's
 * cold tiers, see worker-script.ts). On a machine whose cores are taken, the worker gets no core
 * of its own: its start and its iterations run at the same fraction of a core as the calling
 * thread's, and a short run ends later on two threads than on one (docs/cpu-performance.md: the
 * logistic N = 300 case at a load of 15-19 on 2 cores, where the calling thread got 0.3 of a core,
 * took 9.8-19.3 s of wall on two threads against 5.8-6.3 s on one, and more CPU).
 */

/** The calling thread's work so far: its busy wall time, the process's CPU time over it, and the chain iterations done. */
export interface CallingThreadWork {
  readonly ms: number;
  readonly cpuMs: number;
  readonly chainIterations: number;
}

/** Projected seconds of the calling thread's work beyond which a run enlists its workers. */
export const ENLIST_AFTER_SECONDS = 0.5;

/** The share of a core below which the calling thread counts its machine as loaded. */
export const MIN_CORE_SHARE = 0.5;

/**
 * On a loaded machine, the projected CPU seconds left beyond which a run enlists its workers all
 * the same: a long run's workers pay for their start, and its threads get more of the machine. The
 * first projections are high (the first iterations' trees are long and their code cold: 13 s
 * projected at the first check for a run of 1.2 s, at 2.4 load), hence a margin well above them.
 */
export const LOADED_ENLIST_AFTER_CPU_SECONDS = 30;

/**
 * Whether to enlist workers now, with `chainIterationsLeft` of the calling thread's chain
 * iterations to go. `enlistAfterSeconds`, when given, is the whole rule (0: at once).
 */
export function shouldEnlist(work: CallingThreadWork, chainIterationsLeft: number, enlistAfterSeconds?: number): boolean {
  if (!(work.chainIterations > 0)) return false;
  const perIteration = chainIterationsLeft / work.chainIterations;
  // Seconds of this thread's own work left at its pace so far.
  const left = (perIteration * work.ms) / 1000;
  if (enlistAfterSeconds !== undefined) return left > enlistAfterSeconds;
  if (!(left > ENLIST_AFTER_SECONDS)) return false;
  if (work.cpuMs >= MIN_CORE_SHARE * work.ms) return true;
  return (perIteration * work.cpuMs) / 1000 > LOADED_ENLIST_AFTER_CPU_SECONDS;
}

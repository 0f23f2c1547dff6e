/**
 * The summary of a run's draws made in steps (a parameter, and within one the steps of
 * summarizeSteps: a chain read, a part of the sort, a split chain of a pass), letting signals in
 * between: after a stop signal the command must end within two seconds, so the summary goes on
 * only until its deadline and is otherwise left to `ppl summary DIR`, which reads the same files.
 * One parameter of 4 × 5,000,000 draws takes minutes; its steps, milliseconds each (every loop over
 * the draws, a split chain's or all of them, yields every few tens of thousands of elements).
 */
import { summarizeSteps, type ChainDraws, type Summary } from "@ppl/ppl/diagnostics";

// How long the summary computes before it lets the event loop (a signal's handler) run.
const SLICE_MS = 20;

/** summarizeDraws's summary, or null once `expired()` (asked between steps) says that there is no time left for it; `stepDelayMs`: a test's wait after each parameter. */
export async function summarizeInTime(chains: ChainDraws, maxTreeDepth: number, expired: () => boolean, stepDelayMs = 0): Promise<Summary | null> {
  const { parameters, sampler } = chains;
  // By name, so that draws that are read when asked for (ChainFiles.draws) are read one parameter at a
  // time, and through the source where there is one (a stretch of a chain at a time).
  const steps = summarizeSteps(Object.keys(parameters), (name) => chains.source?.(name) ?? parameters[name]!, { ...(sampler !== undefined ? { sampler } : {}), maxTreeDepth });
  let slice = performance.now();
  for (;;) {
    if (expired()) return null;
    const r = steps.next();
    if (r.done) return r.value;
    if (stepDelayMs > 0 && r.value !== null) await new Promise<void>((resolve) => setTimeout(resolve, stepDelayMs));
    else if (performance.now() - slice >= SLICE_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      slice = performance.now();
    }
  }
}

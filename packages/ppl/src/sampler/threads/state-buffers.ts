import type { RunState } from "../run-state.ts";

/** The buffers of a run state's draws and statistics, to move it to another thread rather than copy it. */
export function stateBuffers(state: RunState): ArrayBuffer[] {
  return state.chains.flatMap((c) => [c.draws.buffer, ...Object.values(c.stats).map((a: Float64Array) => a.buffer)]) as ArrayBuffer[];
}

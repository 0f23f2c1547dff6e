/**
 * Test hooks of a run's phases. With PPL_TRACE_PHASES set, phase changes go to stderr (`phase:
 * warmup`, `phase: sampling`, `phase: summary`): what a test that sends a signal at a given phase
 * waits for. PPL_TEST_SUMMARY_STEP_MS makes each parameter of the summary take that much longer,
 * so that a test's signal meets a summary still being made, as it does on a large run. Neither
 * does anything when unset.
 */

/** The phases a `ppl sample` run goes through. */
export type RunPhase = "warmup" | "sampling" | "summary";

/** A function that says each phase once, as it starts (nothing without PPL_TRACE_PHASES). */
export function phaseTracer(write: (line: string) => void, env: NodeJS.ProcessEnv = process.env): (phase: RunPhase) => void {
  const on = env["PPL_TRACE_PHASES"] !== undefined && env["PPL_TRACE_PHASES"] !== "";
  const said = new Set<RunPhase>();
  return (phase) => {
    if (!on || said.has(phase)) return;
    said.add(phase);
    write(`phase: ${phase}\n`);
  };
}

/** Milliseconds the summary waits after each parameter (PPL_TEST_SUMMARY_STEP_MS; 0 when unset). */
export function summaryStepDelayMs(env: NodeJS.ProcessEnv = process.env): number {
  const ms = Number(env["PPL_TEST_SUMMARY_STEP_MS"] ?? 0);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

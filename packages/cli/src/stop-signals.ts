/**
 * The signals that stop a run cleanly: SIGINT (Ctrl-C), SIGTERM (timeout, docker stop, Slurm's
 * end of a job) and SIGHUP (the terminal went away). The first asks the sampler to stop after the
 * current iteration, so that every CSV file gets its timing footer; a second exits at once, when
 * every row already written is a complete line on disk.
 */
import { ExitCode, type ExitCodeValue } from "./exit-codes.ts";

/** The signals handled, each with the exit code it ends the command with (128 + its number). */
export const STOP_SIGNALS = { SIGHUP: ExitCode.hangup, SIGINT: ExitCode.interrupted, SIGTERM: ExitCode.terminated } as const;

/** One of the signals handled. */
export type StopSignal = keyof typeof STOP_SIGNALS;

/**
 * Aborts `controller` (its reason: the signal's name) on the first stop signal and exits the
 * process on the second; returns the function that removes the handlers.
 */
export function stopOnSignals(controller: AbortController): () => void {
  const handlers = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((signal) => {
    const handler = (): void => {
      if (controller.signal.aborted) process.exit(STOP_SIGNALS[signal]);
      controller.abort(signal);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  return () => {
    for (const off of handlers) off();
  };
}

/** Seconds within which a command ends after the first stop signal; its summary gets what is left of them. */
export const STOP_WITHIN_SECONDS = 2;

/**
 * Whether `signal` aborted more than `seconds` ago: the deadline of work that is done only if it
 * fits (a stopped run's summary). False while it has not aborted.
 */
export function pastStopDeadline(signal: AbortSignal, seconds: number): () => boolean {
  let at = signal.aborted ? performance.now() : Infinity;
  signal.addEventListener("abort", () => (at = performance.now()), { once: true });
  return () => performance.now() - at > seconds * 1000;
}

/** The signal that stopped a run (the abort reason set by stopOnSignals), SIGINT when it is unknown. */
export function stoppedBy(signal: AbortSignal): StopSignal {
  const reason: unknown = signal.reason;
  return typeof reason === "string" && reason in STOP_SIGNALS ? (reason as StopSignal) : "SIGINT";
}

/** The exit code of a run stopped by `signal`. */
export function stopExitCode(signal: StopSignal): ExitCodeValue {
  return STOP_SIGNALS[signal];
}

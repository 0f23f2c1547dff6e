/**
 * The exit codes of `ppl`, and the error type that carries one.
 *
 * 0   success
 * 1   sampling finished but the diagnostics failed and --strict was given
 * 2   usage error: bad option values, unknown options, files that are missing or unreadable
 * 3   model or data error: a model file that does not load or does not default-export a model,
 *     data that do not fit the model, a log density that cannot be initialized
 * 4   device error: a Vulkan backend requested where none is usable; or a write the disk refused
 *     (full: ENOSPC, over quota: EDQUOT, EFBIG, an I/O error: EIO), the file and the cause named,
 *     the files written so far ending at their last complete row (write-failure.ts)
 * 5   an approximation that did not succeed: `ppl optimize` hit --iter or its line search made no
 *     progress (optimize.csv holds the last iterate, marked as not converged), `ppl laplace`
 *     met a Hessian that is not negative definite at the mode (no laplace.csv), every path of
 *     `ppl pathfinder` failed (no pathfinder.csv), or `ppl variational`
 *     hit --iter before its relative ELBO test passed (variational.csv holds draws from the last
 *     iterate, marked as not converged) or could not estimate or improve the ELBO (no variational.csv)
 * 70  an internal error (a bug in ppl, not in the input): the message asks for PPL_DEBUG=1
 * 129 stopped by SIGHUP (the terminal closed), 130 by SIGINT (Ctrl-C), 143 by SIGTERM (timeout,
 *     docker stop, Slurm): 128 + the signal's number, as a shell reports a process the signal
 *     killed; the CSV files hold every draw made so far and are valid
 * 141 the reader of stdout went away (`ppl summary DIR | head`): what SIGPIPE would give
 */
export const ExitCode = {
  ok: 0,
  diagnosticsFailed: 1,
  usage: 2,
  modelOrData: 3,
  device: 4,
  /** A write the disk refused (write-failure.ts): the same code as a device error, the storage being the device. */
  writeFailed: 4,
  notConverged: 5,
  internal: 70,
  hangup: 129,
  interrupted: 130,
  brokenPipe: 141,
  terminated: 143,
} as const;

/** One of the exit codes above. */
export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/**
 * A user-facing failure: one message that names the thing and the fix, and the exit code to leave
 * with; `cause`, the error it stands for, is shown with its stack under PPL_DEBUG=1.
 */
export class CliError extends Error {
  override name = "CliError";
  constructor(
    message: string,
    readonly exitCode: ExitCodeValue,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause });
  }
}

/** A usage error (exit 2). */
export function usageError(message: string, cause?: unknown): CliError {
  return new CliError(message, ExitCode.usage, cause);
}

/** A model or data error (exit 3); `cause` is the error thrown by the model file or the library. */
export function modelError(message: string, cause?: unknown): CliError {
  return new CliError(message, ExitCode.modelOrData, cause);
}

/** A device error (exit 4). */
export function deviceError(message: string): CliError {
  return new CliError(message, ExitCode.device);
}

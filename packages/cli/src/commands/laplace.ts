/**
 * `ppl laplace MODEL --data D`: draws from the normal approximation at the mode, on the
 * unconstrained scale, as CmdStan's laplace: the mode from --mode FILE or found by L-BFGS with
 * CmdStan's defaults, the precision the negative Hessian of the log density there (by central
 * differences of the autodiff gradient), and DIR/laplace.csv with log_p__ (the model's log
 * density at the draw) and log_g__ (the approximation's, up to its constant) before the draw's
 * constrained values. With the Jacobian by default, as CmdStan (its draws then approximate the
 * posterior); --no-jacobian approximates the density of the constrained mode (an MLE's standard
 * errors). A Hessian that is not negative definite is an error (exit 5) and no file is written.
 */
import { approximateTarget, FitError, type ApproximateFit, type LaplaceOptions } from "@ppl/ppl";
import { HessianError, OptimizationError } from "@ppl/ppl/inference";
import { placeApproximation, type ApproximationBackendFlags } from "../approximation-backend-flags.ts";
import { approximationModel, initialPoint } from "../approximation-run.ts";
import { CliError, ExitCode, modelError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { readModeFile } from "../mode-file.ts";
import { prepareOutputDir } from "../output-dir.ts";

/** The options of `ppl laplace`, as parsed by the command line. */
export interface LaplaceCommandOptions extends ApproximationBackendFlags {
  readonly data?: string;
  readonly mode?: string;
  readonly draws: number;
  readonly jacobian: boolean;
  readonly init: number | string;
  readonly seed?: number;
  readonly output: string;
  readonly quiet: boolean;
}

/** Runs `ppl laplace`; returns 0, or 5 when the mode is not a strict maximum or was not found. */
export async function laplaceCommand(modelPath: string, opts: LaplaceCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, opts.jacobian, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const mode = opts.mode !== undefined ? readModeFile(opts.mode, m.compiled) : undefined;
  const options: LaplaceOptions = {
    method: "laplace", seed, draws: opts.draws, jacobian: opts.jacobian, ...(mode !== undefined ? { mode } : { initialPoints: [initialPoint(m, opts.init, seed)] }),
  };
  const placed = await placeApproximation(opts, m, opts.jacobian, options, io, opts.quiet);
  let fit: ApproximateFit;
  try {
    fit = approximateTarget(placed.model, options, {
      dataFile: opts.data, init: opts.init, seedGiven: opts.seed !== undefined, source: m.source, ...(opts.mode !== undefined ? { modeFile: opts.mode } : {}),
      ...(placed.note !== undefined ? { backendNote: placed.note } : {}),
    });
  } catch (e) {
    if (!(e instanceof FitError)) throw e;
    if (e.cause instanceof OptimizationError) throw modelError(`model '${m.compiled.name}': ${e.cause.message}`, e.cause);
    if (e.cause instanceof HessianError) throw new CliError(e.message, ExitCode.notConverged, e.cause);
    // The mode was not found (the optimizer's result is the cause).
    throw new CliError(`${e.message}; find it with \`ppl optimize${opts.jacobian ? " --jacobian" : ""}\` (raise --iter) and pass its optimize.csv with --mode`, ExitCode.notConverged, e);
  } finally {
    placed.dispose();
  }
  const dir = await prepareOutputDir(opts.output, 0);
  const path = fit.writeCsv(dir);
  if (!opts.quiet) io.stderr.write(`wrote ${opts.draws} draws from the normal approximation at the mode to ${path} (seed ${seed})\n`);
  return ExitCode.ok;
}

/**
 * `ppl optimize MODEL --data D`: the posterior mode by L-BFGS (or BFGS, Newton), as CmdStan's
 * optimize: by default the mode of the constrained density without the log-Jacobian of the
 * constraints (--jacobian: the MAP on the unconstrained scale). Writes DIR/optimize.csv (CmdStan's
 * layout: settings, header `lp__,…`, one row of constrained values with the deterministics and
 * generated quantities) and prints the estimates. A run that did not converge (--iter reached, or
 * a line search without progress) still writes its last iterate, says which limit it hit, and
 * exits with code 5.
 */
import { FitError, OPTIMIZE_DEFAULTS, optimizeTarget, type ModeFit } from "@ppl/ppl";
import { OptimizationError, type OptimizerName } from "@ppl/ppl/inference";
import { approximationModel, initialPoint, printEstimates } from "../approximation-run.ts";
import { ExitCode, modelError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { prepareOutputDir } from "../output-dir.ts";

/** The options of `ppl optimize`, as parsed by the command line. */
export interface OptimizeCommandOptions {
  readonly data?: string;
  readonly algorithm: OptimizerName;
  readonly jacobian: boolean;
  readonly iter: number;
  readonly tolObj: number;
  readonly tolRelObj: number;
  readonly tolGrad: number;
  readonly tolRelGrad: number;
  readonly tolParam: number;
  readonly historySize: number;
  readonly initAlpha: number;
  readonly init: number | string;
  readonly seed?: number;
  readonly output: string;
  readonly quiet: boolean;
}

/** CmdStan's defaults of the options above. */
export { OPTIMIZE_DEFAULTS };

/** Runs `ppl optimize`; returns 0, or 5 when the optimizer did not converge. */
export async function optimizeCommand(modelPath: string, opts: OptimizeCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, opts.jacobian, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const q0 = initialPoint(m, opts.init, seed);
  const dir = await prepareOutputDir(opts.output, 0);
  let fit: ModeFit;
  try {
    fit = optimizeTarget(m, {
      algorithm: opts.algorithm, jacobian: opts.jacobian, iter: opts.iter, tolObj: opts.tolObj, tolRelObj: opts.tolRelObj, tolGrad: opts.tolGrad,
      tolRelGrad: opts.tolRelGrad, tolParam: opts.tolParam, historySize: opts.historySize, initAlpha: opts.initAlpha, seed, initialPoint: q0,
    }, { dataFile: opts.data, init: opts.init, seedGiven: opts.seed !== undefined, source: m.source });
  } catch (e) {
    if (e instanceof FitError && e.cause instanceof OptimizationError) throw modelError(`model '${m.compiled.name}': ${e.cause.message}`, e.cause);
    throw e;
  }
  const path = fit.writeCsv(dir);
  printEstimates(io, ["lp__", ...fit.names], [fit.lp, ...fit.names.map((n) => fit.value(n))]);
  if (!opts.quiet) io.stderr.write(`${fit.message}; ${fit.iterations} iterations, ${fit.evaluations} gradient evaluations; wrote ${path}\n`);
  if (fit.converged) return ExitCode.ok;
  io.stderr.write(`ppl: optimize did not converge: ${fit.message}; optimize.csv holds the last iterate, which is not a mode (raise --iter, or start elsewhere with --init)\n`);
  return ExitCode.notConverged;
}

/**
 * `ppl variational MODEL --data D`: ADVI as CmdStan's variational method: a meanfield or fullrank
 * Gaussian on the unconstrained scale fitted by stochastic gradient ascent on the ELBO (η adapted
 * first unless --no-adapt-engaged), stopped by the relative ELBO test. Writes DIR/variational.csv
 * in CmdStan's layout: settings, header `lp__,log_p__,log_g__,…`, the adaptation's η as comments,
 * a first row holding the approximation's mean (lp__, log_p__ and log_g__ 0, as CmdStan writes it),
 * then --draws draws with log_p__ (the model's log density with the Jacobian) and log_g__ (−½ηᵀη).
 * A run that reaches --iter before the test passes still writes its file, marked as not
 * converged, says which criterion it missed and exits 5 (as `ppl optimize`); an ELBO that cannot
 * be estimated, or no step size that improves it, exits 5 and writes no file.
 */
import { approximateTarget, FitError, formatNumber, type ApproximateFit, type VariationalModelOptions } from "@ppl/ppl";
import { VariationalError, type AdviResult, type FamilyName } from "@ppl/ppl/inference";
import { placeApproximation, type ApproximationBackendFlags } from "../approximation-backend-flags.ts";
import { approximationModel, initialPoint } from "../approximation-run.ts";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { prepareOutputDir } from "../output-dir.ts";

/** The options of `ppl variational`, as parsed by the command line. */
export interface VariationalCommandOptions extends ApproximationBackendFlags {
  readonly data?: string;
  readonly algorithm: FamilyName;
  readonly iter: number;
  readonly gradSamples: number;
  readonly elboSamples: number;
  readonly eta: number;
  readonly adaptEngaged: boolean;
  readonly adaptIter: number;
  readonly tolRelObj: number;
  readonly evalElbo: number;
  readonly draws: number;
  readonly init: number | string;
  readonly seed?: number;
  readonly output: string;
  readonly quiet: boolean;
}

/** Runs `ppl variational`; returns 0, or 5 when the ascent did not converge or the ELBO could not be estimated. */
export async function variationalCommand(modelPath: string, opts: VariationalCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, true, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const x0 = initialPoint(m, opts.init, seed);
  const options: VariationalModelOptions = {
    method: "variational", seed, draws: opts.draws, initialPoints: [x0], algorithm: opts.algorithm, iter: opts.iter, gradSamples: opts.gradSamples,
    elboSamples: opts.elboSamples, eta: opts.eta, adaptEngaged: opts.adaptEngaged, adaptIter: opts.adaptIter, tolRelObj: opts.tolRelObj, evalElbo: opts.evalElbo,
  };
  const placed = await placeApproximation(opts, m, true, options, io, opts.quiet);
  let fit: ApproximateFit;
  try {
    fit = approximateTarget(placed.model, options, { dataFile: opts.data, init: opts.init, seedGiven: opts.seed !== undefined, source: m.source, ...(placed.note !== undefined ? { backendNote: placed.note } : {}) });
  } catch (e) {
    const cause = e instanceof FitError ? e.cause : undefined;
    if (cause instanceof VariationalError) throw new CliError(`variational: ${cause.message}; no variational.csv was written`, ExitCode.notConverged, cause);
    throw e;
  } finally {
    placed.dispose();
  }
  const ascent = fit.ascent!;
  if (!opts.quiet) reportAscent(io, ascent);
  const dir = await prepareOutputDir(opts.output, 0);
  const path = fit.writeCsv(dir);
  printMoments(io, fit);
  if (!opts.quiet) io.stderr.write(`${ascent.message}; ${ascent.iterations} iterations (eta ${ascent.eta}); wrote the mean and ${opts.draws} draws to ${path} (seed ${seed})\n`);
  for (const note of ascent.notes) io.stderr.write(`note: ${note}\n`);
  if (fit.converged) return ExitCode.ok;
  io.stderr.write(`ppl: variational ${ascent.message}; variational.csv holds draws from the last iterate, which may be far from the optimum (raise --iter, or loosen --tol-rel-obj)\n`);
  return ExitCode.notConverged;
}

// The adaptation's trials and the ascent's ELBO checks, as CmdStan's log shows them.
function reportAscent(io: CommandIO, fit: AdviResult): void {
  if (fit.adaptation) {
    const trials = fit.adaptation.trials.map((t) => `${t.eta}: ${Number.isFinite(t.elbo) ? t.elbo.toFixed(3) : "diverged"}`).join(", ");
    io.stderr.write(`eta adaptation: initial ELBO ${fit.adaptation.initialElbo.toFixed(3)}; ELBO after 50 iterations at eta ${trials}; chose eta = ${fit.eta}\n`);
  }
  io.stderr.write(`${"iter".padStart(6)}  ${"ELBO".padStart(15)}  ${"delta_ELBO_mean".padStart(16)}  ${"delta_ELBO_med".padStart(15)}\n`);
  for (const c of fit.checks) {
    const mark = c.meanConverged ? "   MEAN ELBO CONVERGED" : c.medianConverged ? "   MEDIAN ELBO CONVERGED" : "";
    io.stderr.write(`${String(c.iteration).padStart(6)}  ${c.elbo.toFixed(3).padStart(15)}  ${c.mean.toFixed(3).padStart(16)}  ${c.median.toFixed(3).padStart(15)}${mark}\n`);
  }
}

// The approximation's mean (the file's first row) and the draws' sd and 5%, 50%, 95% quantiles, per column.
function printMoments(io: CommandIO, fit: ApproximateFit): void {
  const width = Math.max(8, ...fit.names.map((n) => n.length));
  const cols = ["mean", "sd", "5%", "50%", "95%"];
  io.stdout.write(`${"variable".padEnd(width)}  ${cols.map((c) => c.padStart(10)).join("  ")}\n`);
  fit.summary().forEach((r, j) => {
    const values = [fit.center![j]!, r.sd, r.q5, r.q50, r.q95];
    io.stdout.write(`${r.name.padEnd(width)}  ${values.map((v) => formatShort(v).padStart(10)).join("  ")}\n`);
  });
}

function formatShort(v: number): string {
  return Number.isFinite(v) ? formatNumber(Number(v.toPrecision(4))) : String(v);
}

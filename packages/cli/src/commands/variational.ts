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
import { join } from "node:path";
import { fileSink, formatNumber, philoxRng, writeStanCsv, type ConfigNode } from "@ppl/ppl";
import { ADVI_DEFAULTS, advi, approximationDraw, approximationMean, VariationalError, type AdviResult, type FamilyName } from "@ppl/ppl/inference";
import { approximationModel, commonConfig, initialPoint, type ApproximationModel } from "../approximation-run.ts";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import { generatedColumns } from "../generated-columns.ts";
import type { CommandIO } from "../io.ts";
import { prepareOutputDir } from "../output-dir.ts";

/** The options of `ppl variational`, as parsed by the command line. */
export interface VariationalCommandOptions {
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

/** The Philox streams of a run's seed: initial points take 0 … 99 (as optimize's), the ascent 100, the output draws 101. */
const ASCENT_STREAM = 100;
const DRAWS_STREAM = 101;

/** Runs `ppl variational`; returns 0, or 5 when the ascent did not converge or the ELBO could not be estimated. */
export async function variationalCommand(modelPath: string, opts: VariationalCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, true, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const x0 = initialPoint(m, opts.init, seed);
  const t0 = performance.now();
  let fit: AdviResult;
  try {
    fit = advi(m.objective, x0, philoxRng(seed, ASCENT_STREAM), opts);
  } catch (e) {
    if (e instanceof VariationalError) throw new CliError(`variational: ${e.message}; no variational.csv was written`, ExitCode.notConverged, e);
    throw e;
  }
  if (!opts.quiet) reportAscent(io, fit);
  const dir = await prepareOutputDir(opts.output, 0);
  const path = join(dir, "variational.csv");
  const written = writeDraws(m, fit, opts, seed, path, (performance.now() - t0) / 1000);
  printMoments(io, written);
  if (!opts.quiet) io.stderr.write(`${fit.message}; ${fit.iterations} iterations (eta ${fit.eta}); wrote the mean and ${opts.draws} draws to ${path} (seed ${seed})\n`);
  for (const note of fit.notes) io.stderr.write(`note: ${note}\n`);
  if (fit.converged) return ExitCode.ok;
  io.stderr.write(`ppl: variational ${fit.message}; variational.csv holds draws from the last iterate, which may be far from the optimum (raise --iter, or loosen --tol-rel-obj)\n`);
  return ExitCode.notConverged;
}

/** What variational.csv holds after log_g__: the column names, the mean row and the draws' rows. */
interface Written {
  readonly names: readonly string[];
  readonly mean: Float64Array;
  readonly rows: readonly Float64Array[];
}

// The file: header, η, the mean row, the draws.
function writeDraws(m: ApproximationModel, fit: AdviResult, opts: VariationalCommandOptions, seed: number, path: string, seconds: number): Written {
  const generated = generatedColumns(m.compiled, seed, false);
  const names = [...m.compiled.constrainedNames(), ...generated.names];
  const config = [
    { key: "model", value: m.compiled.name },
    { key: "method", value: "variational", children: [{ key: "variational", children: variationalSettings(opts) }] },
    ...commonConfig(opts.data, opts.init, seed, opts.seed !== undefined, path),
  ];
  const writer = writeStanCsv(fileSink(path), { config, parameters: names, samplerColumns: ["lp__", "log_p__", "log_g__"] });
  const grad = new Float64Array(m.compiled.dim);
  const rng = philoxRng(seed, DRAWS_STREAM);
  const rows: Float64Array[] = [];
  let mean = new Float64Array(0);
  try {
    if (fit.adaptation) {
      writer.writeComment("Stepsize adaptation complete.");
      writer.writeComment(`eta = ${fit.eta}`);
    }
    mean = Float64Array.from(generated.row(0, 0, m.generated(approximationMean(fit))));
    writer.writeDraw([0, 0, 0, ...mean]);
    for (let d = 1; d <= opts.draws; d++) {
      const { x, logG } = approximationDraw(fit, rng);
      const row = Float64Array.from(generated.row(0, d, m.generated(x)));
      rows.push(row);
      writer.writeDraw([0, -m.objective.evaluate(x, grad), logG, ...row]);
    }
    // The message says which: "converged: …" or "did not converge: …".
    writer.writeComment(`ADVI ${fit.message}`);
    writer.writeComment(`Iterations: ${fit.iterations}`);
  } finally {
    writer.close({ warmup: 0, sampling: seconds });
  }
  return { names, mean, rows };
}

// The variational section of the settings, nested as CmdStan nests it.
function variationalSettings(o: VariationalCommandOptions): ConfigNode[] {
  const d = ADVI_DEFAULTS;
  const e = (key: string, value: number, def: number): ConfigNode => ({ key, value, isDefault: value === def });
  return [
    { key: "algorithm", value: o.algorithm, isDefault: o.algorithm === d.algorithm, children: [{ key: o.algorithm, children: [] }] },
    e("iter", o.iter, d.iter), e("grad_samples", o.gradSamples, d.gradSamples), e("elbo_samples", o.elboSamples, d.elboSamples), e("eta", o.eta, d.eta),
    { key: "adapt", children: [{ key: "engaged", value: o.adaptEngaged, isDefault: o.adaptEngaged }, e("iter", o.adaptIter, d.adaptIter)] },
    e("tol_rel_obj", o.tolRelObj, d.tolRelObj), e("eval_elbo", o.evalElbo, d.evalElbo), e("output_samples", o.draws, 1000),
  ];
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
function printMoments(io: CommandIO, w: Written): void {
  const width = Math.max(8, ...w.names.map((n) => n.length));
  const cols = ["mean", "sd", "5%", "50%", "95%"];
  io.stdout.write(`${"variable".padEnd(width)}  ${cols.map((c) => c.padStart(10)).join("  ")}\n`);
  w.names.forEach((name, j) => {
    const x = Float64Array.from(w.rows, (r) => r[j]!).sort();
    const n = x.length;
    const avg = x.reduce((a, b) => a + b, 0) / n;
    const sd = n > 1 ? Math.sqrt(x.reduce((a, b) => a + (b - avg) ** 2, 0) / (n - 1)) : NaN;
    // Quantiles by linear interpolation between order statistics (R's type 7, as the summary's).
    const q = (p: number) => {
      const h = (n - 1) * p;
      const lo = Math.floor(h);
      return x[lo]! + (h - lo) * ((x[Math.min(lo + 1, n - 1)] ?? x[lo]!) - x[lo]!);
    };
    const values = [w.mean[j]!, sd, q(0.05), q(0.5), q(0.95)];
    io.stdout.write(`${name.padEnd(width)}  ${values.map((v) => formatShort(v).padStart(10)).join("  ")}\n`);
  });
}

function formatShort(v: number): string {
  return Number.isFinite(v) ? formatNumber(Number(v.toPrecision(4))) : String(v);
}

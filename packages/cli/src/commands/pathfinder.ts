/**
 * `ppl pathfinder MODEL --data D`: Pathfinder as CmdStan's pathfinder (Zhang et al. 2022):
 * `--num-paths` L-BFGS paths from random initial points, at each iterate a normal approximation
 * whose ELBO is estimated by Monte Carlo, draws from each path's best one, pooled and
 * importance-resampled with Pareto smoothing (`--no-psis-resample`: all pooled draws). Writes
 * DIR/pathfinder.csv (CmdStan's layout: settings, header `lp_approx__,lp__,` then the constrained
 * values with deterministics and generated quantities) and prints each variable's mean and sd,
 * the paths' ELBOs and the Pareto k. Every path failing is exit 5 with no CSV written.
 */
import { approximateTarget, FitError, formatFourDigits as short, type ApproximateFit, type ApproximationInputs, type PathfinderModelOptions } from "@ppl/ppl";
import { pathfinder, PathfinderError, type PathfinderResult } from "@ppl/ppl/inference";
import { placeApproximation, type ApproximationBackendFlags } from "../approximation-backend-flags.ts";
import { approximationModel, type ApproximationModel } from "../approximation-run.ts";
import { CliError, ExitCode, modelError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { prepareOutputDir } from "../output-dir.ts";
import { readInitFile } from "../start-values.ts";

/** The options of `ppl pathfinder`, as parsed by the command line. */
export interface PathfinderCommandOptions extends ApproximationBackendFlags {
  readonly data?: string;
  readonly numPaths: number;
  readonly draws: number;
  readonly psisResample: boolean;
  readonly numElboDraws: number;
  readonly historySize: number;
  readonly maxLbfgsIters: number;
  readonly init: number | string;
  readonly seed?: number;
  readonly output: string;
  readonly quiet: boolean;
}

/** Runs `ppl pathfinder`; returns 0, or 5 when every path failed (no CSV then). */
export async function pathfinderCommand(modelPath: string, opts: PathfinderCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, true, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const given = typeof opts.init === "string" ? readInitFile(opts.init, m.compiled, opts.numPaths, seed) : undefined;
  for (const note of given?.notes ?? []) io.stderr.write(note + "\n");
  const options: PathfinderModelOptions = {
    method: "pathfinder", seed, draws: opts.draws, numPaths: opts.numPaths, psisResample: opts.psisResample, numElboDraws: opts.numElboDraws,
    historySize: opts.historySize, maxLbfgsIters: opts.maxLbfgsIters,
    ...(typeof opts.init === "number" ? { init: opts.init } : {}), ...(given ? { initialPoints: given.perChain } : {}),
  };
  const placed = await placeApproximation(opts, m, true, options, io, opts.quiet);
  let fit: ApproximateFit;
  try {
    fit = pathfinderFit(placed.model, options, { dataFile: opts.data, init: opts.init, seedGiven: opts.seed !== undefined, source: m.source, ...(placed.note !== undefined ? { backendNote: placed.note } : {}) });
  } finally {
    placed.dispose();
  }
  const dir = await prepareOutputDir(opts.output, 0);
  const path = fit.writeCsv(dir);
  printSummary(io, fit);
  if (!opts.quiet) io.stderr.write(`wrote ${fit.size} draws to ${path} (seed ${seed})\n`);
  return ExitCode.ok;
}

// The library's run, its failures as the CLI's: no finite initial point is a model error (exit 3), every path failing exit 5.
function pathfinderFit(m: ApproximationModel, options: PathfinderModelOptions, inputs: ApproximationInputs): ApproximateFit {
  try {
    return approximateTarget(m, options, inputs);
  } catch (e) {
    const cause = e instanceof FitError ? e.cause : undefined;
    throw cause instanceof PathfinderError ? pathfinderFailure(m, cause) : e;
  }
}

/** Runs the paths (a round of them one call of m.batched where placed on a GPU); a density not finite at any initial point is a model error (exit 3), every path failing exit 5. */
export function runPathfinder(m: Pick<ApproximationModel, "compiled" | "objective" | "batched">, opts: PathfinderCommandOptions, seed: number, io: CommandIO, resampled?: { first: number; count: number }): PathfinderResult {
  const given = typeof opts.init === "string" ? readInitFile(opts.init, m.compiled, opts.numPaths, seed) : undefined;
  for (const note of given?.notes ?? []) io.stderr.write(note + "\n");
  try {
    return pathfinder(m.objective, {
      seed, numPaths: opts.numPaths, numDraws: opts.draws, psisResample: opts.psisResample, numElboDraws: opts.numElboDraws,
      historySize: opts.historySize, iter: opts.maxLbfgsIters,
      ...(typeof opts.init === "number" ? { initRadius: opts.init } : {}),
      ...(given ? { init: given.perChain } : {}),
      ...(resampled ? { firstResampled: resampled.first, numResampled: resampled.count } : {}),
    }, m.batched);
  } catch (e) {
    throw e instanceof PathfinderError ? pathfinderFailure(m, e) : e;
  }
}

// No finite initial point is a model error (exit 3), every path failing exit 5.
function pathfinderFailure(m: Pick<ApproximationModel, "compiled">, e: PathfinderError): CliError {
  if (e.reason === "init") return modelError(`model '${m.compiled.name}': ${e.message}; give initial values with --init FILE.json, or a smaller --init radius`, e);
  return new CliError(`pathfinder: ${e.message}; check that the model has a proper posterior (each parameter a proper prior or enough data), or start elsewhere with --init`, ExitCode.notConverged, e);
}

// Each variable's mean and sd over the draws, then the paths and the Pareto k (with Stan's warning above 0.7).
function printSummary(io: CommandIO, fit: ApproximateFit): void {
  const rows = [{ name: "lp__", ...moments(fit.draws("lp__")) }, ...fit.summary()];
  const width = Math.max(8, ...rows.map((r) => r.name.length));
  io.stdout.write(`${"variable".padEnd(width)}  ${"mean".padStart(12)}  ${"sd".padStart(12)}\n`);
  for (const r of rows) io.stdout.write(`${r.name.padEnd(width)}  ${short(r.mean).padStart(12)}  ${short(r.sd).padStart(12)}\n`);
  io.stdout.write("\n" + fit.notes.join("\n") + "\n");
  const k = fit.paretoK;
  if (k > 0.7) {
    io.stderr.write(`warning: Pareto k ${Number.isFinite(k) ? k.toFixed(2) : "Inf"} > 0.7: importance resampling could not correct the approximation, which may be poor (a funnel, several modes, or heavy tails); check the draws against NUTS (\`ppl sample\`)\n`);
  }
}

function moments(x: Float64Array): { mean: number; sd: number } {
  const mean = x.reduce((t, v) => t + v, 0) / x.length;
  return { mean, sd: Math.sqrt(x.reduce((t, v) => t + (v - mean) ** 2, 0) / Math.max(1, x.length - 1)) };
}


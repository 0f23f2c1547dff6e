/**
 * `ppl pathfinder MODEL --data D`: Pathfinder as CmdStan's pathfinder (Zhang et al. 2022):
 * `--num-paths` L-BFGS paths from random initial points, at each iterate a normal approximation
 * whose ELBO is estimated by Monte Carlo, draws from each path's best one, pooled and
 * importance-resampled with Pareto smoothing (`--no-psis-resample`: all pooled draws). Writes
 * DIR/pathfinder.csv (CmdStan's layout: settings, header `lp_approx__,lp__,` then the constrained
 * values with deterministics and generated quantities) and prints each variable's mean and sd,
 * the paths' ELBOs and the Pareto k. Every path failing is exit 5 with no CSV written.
 */
import { join } from "node:path";
import type { ConfigNode } from "@ppl/ppl";
import { pathfinder, PathfinderError, PATH_DEFAULTS, type PathfinderResult } from "@ppl/ppl/inference";
import { approximationModel, commonConfig, writeCsvFile, type ApproximationModel } from "../approximation-run.ts";
import { CliError, ExitCode, modelError, type ExitCodeValue } from "../exit-codes.ts";
import { generatedColumns } from "../generated-columns.ts";
import type { CommandIO } from "../io.ts";
import { prepareOutputDir } from "../output-dir.ts";
import { readInitFile } from "../start-values.ts";

/** The options of `ppl pathfinder`, as parsed by the command line. */
export interface PathfinderCommandOptions {
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
  const t0 = performance.now();
  const result = runPathfinder(m, opts, seed, io);
  const dir = await prepareOutputDir(opts.output, 0);
  const path = join(dir, "pathfinder.csv");
  const generated = generatedColumns(m.compiled, seed, false);
  const names = [...m.compiled.constrainedNames(), ...generated.names];
  const rows = result.draws.x.map((x, d) => [result.draws.lpApprox[d]!, result.draws.lp[d]!, ...Array.from(generated.row(0, d, m.generated(x)))]);
  const config = [
    { key: "model", value: m.compiled.name },
    { key: "method", value: "pathfinder", children: [{ key: "pathfinder", children: pathfinderSettings(opts) }] },
    ...commonConfig(opts.data, opts.init, seed, opts.seed !== undefined, path),
  ];
  writeCsvFile(path, config, ["lp_approx__", "lp__"], names, rows, (performance.now() - t0) / 1000, trailer(result));
  printSummary(io, ["lp__", ...names], rows.map((r) => r.slice(1)), result);
  if (!opts.quiet) io.stderr.write(`wrote ${rows.length} draws to ${path} (seed ${seed})\n`);
  return ExitCode.ok;
}

/** Runs the paths; a density not finite at any initial point is a model error (exit 3), every path failing exit 5. */
export function runPathfinder(m: ApproximationModel, opts: PathfinderCommandOptions, seed: number, io: CommandIO, resampled?: { first: number; count: number }): PathfinderResult {
  const given = typeof opts.init === "string" ? readInitFile(opts.init, m.compiled, opts.numPaths, seed) : undefined;
  for (const note of given?.notes ?? []) io.stderr.write(note + "\n");
  try {
    return pathfinder(m.objective, {
      seed, numPaths: opts.numPaths, numDraws: opts.draws, psisResample: opts.psisResample, numElboDraws: opts.numElboDraws,
      historySize: opts.historySize, iter: opts.maxLbfgsIters,
      ...(typeof opts.init === "number" ? { initRadius: opts.init } : {}),
      ...(given ? { init: given.perChain } : {}),
      ...(resampled ? { firstResampled: resampled.first, numResampled: resampled.count } : {}),
    });
  } catch (e) {
    if (!(e instanceof PathfinderError)) throw e;
    if (e.reason === "init") throw modelError(`model '${m.compiled.name}': ${e.message}; give initial values with --init FILE.json, or a smaller --init radius`, e);
    throw new CliError(`pathfinder: ${e.message}; check that the model has a proper posterior (each parameter a proper prior or enough data), or start elsewhere with --init`, ExitCode.notConverged, e);
  }
}

// The pathfinder section of the settings, as CmdStan nests it.
function pathfinderSettings(o: PathfinderCommandOptions): ConfigNode[] {
  const d = PATH_DEFAULTS;
  const e = (key: string, value: number | boolean, def: number | boolean): ConfigNode => ({ key, value, isDefault: value === def });
  return [
    e("init_alpha", d.initAlpha, d.initAlpha), e("tol_obj", d.tolObj, d.tolObj), e("tol_rel_obj", d.tolRelObj, d.tolRelObj),
    e("tol_grad", d.tolGrad, d.tolGrad), e("tol_rel_grad", d.tolRelGrad, d.tolRelGrad), e("tol_param", d.tolParam, d.tolParam),
    e("history_size", o.historySize, d.historySize), e("num_psis_draws", o.draws, 1000), e("num_paths", o.numPaths, 4),
    e("save_single_paths", false, false), e("psis_resample", o.psisResample, true), e("calculate_lp", true, true),
    e("max_lbfgs_iters", o.maxLbfgsIters, d.iter), e("num_draws", o.draws, d.numDraws), e("num_elbo_draws", o.numElboDraws, d.numElboDraws),
  ];
}

function pathLines(r: PathfinderResult): string[] {
  return r.paths.map((p) => p.draws === null
    ? `Path ${p.path + 1}: failed: ${p.message}`
    : `Path ${p.path + 1}: best iteration ${p.bestIteration} of ${p.iterations}, ELBO ${short(p.elbo)}, ${p.evaluations} evaluations (${p.message})`);
}

function kLine(r: PathfinderResult): string {
  const k = Number.isNaN(r.paretoK) ? "none (every importance weight is the same: the approximation is the density up to its constant)"
    : Number.isFinite(r.paretoK) ? r.paretoK.toFixed(2) : "Inf (the tail could not be fitted)";
  const what = r.resampled ? "resampled by Pareto-smoothed importance weights" : "pooled, not resampled (--no-psis-resample)";
  return `Pareto k ${k}: the draws are ${what}`;
}

function trailer(r: PathfinderResult): string[] {
  return [...pathLines(r), kLine(r)];
}

// Each variable's mean and sd over the draws, then the paths and the Pareto k (with Stan's warning above 0.7).
function printSummary(io: CommandIO, names: readonly string[], rows: readonly number[][], r: PathfinderResult): void {
  const width = Math.max(8, ...names.map((n) => n.length));
  io.stdout.write(`${"variable".padEnd(width)}  ${"mean".padStart(12)}  ${"sd".padStart(12)}\n`);
  names.forEach((n, j) => {
    const mean = rows.reduce((t, row) => t + row[j]!, 0) / rows.length;
    const sd = Math.sqrt(rows.reduce((t, row) => t + (row[j]! - mean) ** 2, 0) / Math.max(1, rows.length - 1));
    io.stdout.write(`${n.padEnd(width)}  ${short(mean).padStart(12)}  ${short(sd).padStart(12)}\n`);
  });
  io.stdout.write("\n" + [...pathLines(r), kLine(r)].join("\n") + "\n");
  if (r.paretoK > 0.7) {
    io.stderr.write(`warning: Pareto k ${Number.isFinite(r.paretoK) ? r.paretoK.toFixed(2) : "Inf"} > 0.7: importance resampling could not correct the approximation, which may be poor (a funnel, several modes, or heavy tails); check the draws against NUTS (\`ppl sample\`)\n`);
  }
}

// Four significant digits, as a summary table shows them.
function short(v: number): string {
  return v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e6) ? String(Number(v.toPrecision(4))) : v.toExponential(3);
}

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
import { join } from "node:path";
import { philoxRng } from "@ppl/ppl";
import { HessianError, laplaceApproximation, laplaceDraw, type LaplaceApproximation } from "@ppl/ppl/inference";
import { approximationModel, commonConfig, findMode, initialPoint, writeCsvFile } from "../approximation-run.ts";
import { CliError, ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import { generatedColumns } from "../generated-columns.ts";
import type { CommandIO } from "../io.ts";
import { readModeFile } from "../mode-file.ts";
import { prepareOutputDir } from "../output-dir.ts";

/** The options of `ppl laplace`, as parsed by the command line. */
export interface LaplaceCommandOptions {
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
  let mode: Float64Array;
  if (opts.mode !== undefined) mode = readModeFile(opts.mode, m.compiled);
  else {
    // L-BFGS gets near the mode; Newton's steps (the Hessian is needed anyway) then finish it,
    // where an ill-conditioned posterior stops L-BFGS's relative tests early (kidiq's regression).
    // A Newton step that cannot decrease the objective further (a line search failing at the
    // mode to rounding) leaves L-BFGS's point, which converged.
    const near = findMode(m, initialPoint(m, opts.init, seed), {});
    const polished = near.converged ? findMode(m, near.x, { algorithm: "newton" }) : near;
    const found = polished.f <= near.f ? { ...polished, converged: near.converged } : near;
    if (!found.converged) throw new CliError(`laplace: the mode was not found: ${found.message}; find it with \`ppl optimize${opts.jacobian ? " --jacobian" : ""}\` (raise --iter) and pass its optimize.csv with --mode`, ExitCode.notConverged);
    mode = found.x;
  }
  let approx: LaplaceApproximation;
  try {
    approx = laplaceApproximation(m.objective, mode);
  } catch (e) {
    if (e instanceof HessianError) throw new CliError(`laplace: ${e.message}`, ExitCode.notConverged, e);
    throw e;
  }
  const dir = await prepareOutputDir(opts.output, 0);
  const path = join(dir, "laplace.csv");
  const generated = generatedColumns(m.compiled, seed, false);
  const names = [...m.compiled.constrainedNames(), ...generated.names];
  const rng = philoxRng(seed, 0);
  const grad = new Float64Array(m.compiled.dim);
  const t0 = performance.now();
  const rows: number[][] = [];
  for (let d = 0; d < opts.draws; d++) {
    const { x, logG } = laplaceDraw(approx, rng);
    const logP = -m.objective.evaluate(x, grad);
    rows.push([logP, logG, ...Array.from(generated.row(0, d, m.generated(x)))]);
  }
  const config = [
    { key: "model", value: m.compiled.name },
    {
      key: "method", value: "laplace",
      children: [{ key: "laplace", children: [
        { key: "mode", value: opts.mode ?? "", isDefault: opts.mode === undefined },
        { key: "jacobian", value: opts.jacobian, isDefault: opts.jacobian },
        { key: "draws", value: opts.draws, isDefault: opts.draws === 1000 },
      ] }],
    },
    ...commonConfig(opts.data, opts.init, seed, opts.seed !== undefined, path),
  ];
  writeCsvFile(path, config, ["log_p__", "log_g__"], names, rows, (performance.now() - t0) / 1000);
  if (!opts.quiet) io.stderr.write(`wrote ${opts.draws} draws from the normal approximation at the mode to ${path} (seed ${seed})\n`);
  return ExitCode.ok;
}

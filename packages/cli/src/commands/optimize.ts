/**
 * `ppl optimize MODEL --data D`: the posterior mode by L-BFGS (or BFGS, Newton), as CmdStan's
 * optimize: by default the mode of the constrained density without the log-Jacobian of the
 * constraints (--jacobian: the MAP on the unconstrained scale). Writes DIR/optimize.csv (CmdStan's
 * layout: settings, header `lp__,…`, one row of constrained values with the deterministics and
 * generated quantities) and prints the estimates. A run that did not converge (--iter reached, or
 * a line search without progress) still writes its last iterate, says which limit it hit, and
 * exits with code 5.
 */
import { join } from "node:path";
import { CONVERGENCE_DEFAULTS, type OptimizeResult, type OptimizerName } from "@ppl/ppl/inference";
import type { ConfigNode } from "@ppl/ppl";
import { approximationModel, commonConfig, findMode, initialPoint, printEstimates, writeCsvFile } from "../approximation-run.ts";
import { ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import { generatedColumns } from "../generated-columns.ts";
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
export const OPTIMIZE_DEFAULTS = { ...CONVERGENCE_DEFAULTS, historySize: 5, initAlpha: 0.001 } as const;

/** Runs `ppl optimize`; returns 0, or 5 when the optimizer did not converge. */
export async function optimizeCommand(modelPath: string, opts: OptimizeCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, opts.jacobian, io);
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  const q0 = initialPoint(m, opts.init, seed);
  const dir = await prepareOutputDir(opts.output, 0);
  const t0 = performance.now();
  const result = findMode(m, q0, opts);
  const seconds = (performance.now() - t0) / 1000;
  const generated = generatedColumns(m.compiled, seed, false);
  const names = [...m.compiled.constrainedNames(), ...generated.names];
  const values = Array.from(generated.row(0, 0, m.generated(result.x)));
  const path = join(dir, "optimize.csv");
  const config = [
    { key: "model", value: m.compiled.name },
    { key: "method", value: "optimize", children: [{ key: "optimize", children: optimizeSettings(opts) }] },
    ...commonConfig(opts.data, opts.init, seed, opts.seed !== undefined, path),
  ];
  writeCsvFile(path, config, ["lp__"], names, [[-result.f, ...values]], seconds, trailer(result));
  printEstimates(io, ["lp__", ...names], [-result.f, ...values]);
  if (!opts.quiet) io.stderr.write(`${result.message}; ${result.iterations} iterations, ${result.evaluations} gradient evaluations; wrote ${path}\n`);
  if (result.converged) return ExitCode.ok;
  io.stderr.write(`ppl: optimize did not converge: ${result.message}; optimize.csv holds the last iterate, which is not a mode (raise --iter, or start elsewhere with --init)\n`);
  return ExitCode.notConverged;
}

// The optimize section of the settings, nested as CmdStan nests it.
function optimizeSettings(o: OptimizeCommandOptions): ConfigNode[] {
  const d = OPTIMIZE_DEFAULTS;
  const e = (key: string, value: number, def: number): ConfigNode => ({ key, value, isDefault: value === def });
  const quasiNewton = [
    e("init_alpha", o.initAlpha, d.initAlpha), e("tol_obj", o.tolObj, d.tolObj), e("tol_rel_obj", o.tolRelObj, d.tolRelObj),
    e("tol_grad", o.tolGrad, d.tolGrad), e("tol_rel_grad", o.tolRelGrad, d.tolRelGrad), e("tol_param", o.tolParam, d.tolParam),
    ...(o.algorithm === "lbfgs" ? [e("history_size", o.historySize, d.historySize)] : []),
  ];
  return [
    { key: "algorithm", value: o.algorithm, isDefault: o.algorithm === "lbfgs", children: [{ key: o.algorithm, children: o.algorithm === "newton" ? [] : quasiNewton }] },
    { key: "jacobian", value: o.jacobian, isDefault: !o.jacobian },
    e("iter", o.iter, d.iter),
    { key: "save_iterations", value: false, isDefault: true },
  ];
}

function trailer(r: OptimizeResult): string[] {
  return [
    r.converged ? `Optimization terminated normally: ${r.message}` : `Optimization did not converge: ${r.message}`,
    `Iterations: ${r.iterations}, gradient evaluations: ${r.evaluations}`,
  ];
}

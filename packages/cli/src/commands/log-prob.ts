/**
 * `ppl log-prob MODEL --data D --params FILE`: the log density and its gradient on the
 * unconstrained scale at given constrained values, as CmdStan's log_prob method: the values from a
 * JSON file (one point) or a Stan CSV file (one point per row: a run's draws, an optimize.csv); with
 * the log-Jacobian by default, as CmdStan (--no-jacobian: without it). Writes DIR/log_prob.csv,
 * one row per point, `lp__` then the gradient `g_1 … g_D`, and prints it.
 */
import { join } from "node:path";
import { formatNumber } from "@ppl/ppl";
import { approximationModel, commonConfig, writeCsvFile } from "../approximation-run.ts";
import { ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { readConstrainedPoints } from "../mode-file.ts";
import { prepareOutputDir } from "../output-dir.ts";

/** The options of `ppl log-prob`, as parsed by the command line. */
export interface LogProbCommandOptions {
  readonly data?: string;
  readonly params: string;
  readonly jacobian: boolean;
  readonly output: string;
  readonly quiet: boolean;
}

/** Runs `ppl log-prob`; returns 0. */
export async function logProbCommand(modelPath: string, opts: LogProbCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const m = await approximationModel(modelPath, opts.data, opts.jacobian, io);
  const points = readConstrainedPoints(opts.params, m.compiled, "params file");
  const dim = m.compiled.dim;
  const grad = new Float64Array(dim);
  const t0 = performance.now();
  const rows = points.map((q) => {
    const f = m.objective.evaluate(q, grad);
    return [-f, ...Array.from(grad, (g) => -g)];
  });
  const dir = await prepareOutputDir(opts.output, 0);
  const path = join(dir, "log_prob.csv");
  const columns = ["lp__", ...Array.from({ length: dim }, (_, i) => `g_${i + 1}`)];
  const config = [
    { key: "model", value: m.compiled.name },
    { key: "method", value: "log_prob", children: [{ key: "log_prob", children: [
      { key: "constrained_params", value: opts.params },
      { key: "jacobian", value: opts.jacobian, isDefault: opts.jacobian },
    ] }] },
    ...commonConfig(opts.data, 2, 0, false, path).filter((n) => n.key !== "init" && n.key !== "random"),
  ];
  writeCsvFile(path, config, columns, [], rows, (performance.now() - t0) / 1000);
  io.stdout.write(columns.join(",") + "\n" + rows.map((r) => r.map(formatNumber).join(",")).join("\n") + "\n");
  if (!opts.quiet) io.stderr.write(`wrote the log density and gradient at ${rows.length} point${rows.length === 1 ? "" : "s"} to ${path}\n`);
  return ExitCode.ok;
}

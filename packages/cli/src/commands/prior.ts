/**
 * `ppl sample MODEL.ts --prior`: exact draws from the prior, without MCMC — each parameter from its
 * prior's own sampler in declaration order, on the host in f64 — with the deterministics, the
 * generated quantities and the predictive draws of every observe term (the observations replaced
 * by draws). The files are Stan CSV as CmdStan's fixed_param sampler writes them: lp__ and
 * accept_stat__ (both 0), then the columns of `ppl sample`. A model whose prior has no exact draw
 * (a factor term, an observe of a parameter, a custom density, a flat improper prior, …) is a model
 * error naming the term; such a prior can be sampled with NUTS by writing it as a model without
 * its observe terms.
 */
import { basename, join, resolve } from "node:path";
import { writeFileSync } from "node:fs";
import { dataLayoutKeys, layoutNodes, ModelError, priorSampler, writeSummaryJson, type ConfigNode, type PriorSampler, type SamplerColumn } from "@ppl/ppl";
import { ChainFiles } from "../chain-files.ts";
import { compileWithData } from "../compile.ts";
import { ExitCode, modelError, usageError, type ExitCodeValue } from "../exit-codes.ts";
import { generatedColumns } from "../generated-columns.ts";
import type { CommandIO } from "../io.ts";
import { hashDataFile } from "../data-hash.ts";
import { loadData } from "../load-data.ts";
import { firstLine, loadModel } from "../load-model.ts";
import { logLikColumns } from "../log-lik-columns.ts";
import { prepareOutputDir } from "../output-dir.ts";
import { lockOutputDir } from "../output-lock.ts";
import { pastStopDeadline, STOP_WITHIN_SECONDS, stopExitCode, stopOnSignals, stoppedBy } from "../stop-signals.ts";
import { summarizeInTime } from "../summary-in-time.ts";
import { formatSummary } from "../summary-text.ts";
import { filterSummary, hiddenNote, selectVariables } from "../variable-filter.ts";
import type { SampleCommandOptions } from "./sample-options.ts";

/** The leading columns of a prior draw's row, as CmdStan's fixed_param sampler writes them. */
export const PRIOR_SAMPLER_COLUMNS = ["lp__", "accept_stat__"] as const satisfies readonly SamplerColumn[];

/** Runs `ppl sample --prior`; returns the exit code (0, 1 with --strict and failed diagnostics, 130 when interrupted). */
export async function priorCommand(modelPath: string, opts: SampleCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const info = (line: string): void => {
    if (!opts.quiet) io.stderr.write(line + "\n");
  };
  // The data file before the model, whose loading takes seconds: a missing file is a usage error said at once.
  const json = loadData(opts.data);
  const model = await loadModel(modelPath);
  const dir = await prepareOutputDir(opts.output, opts.chains);
  // One writer per directory, as ppl sample: a second run into it is refused while this one writes (released on exit).
  lockOutputDir(dir, (line) => io.stderr.write(line + "\n"));
  const compiled = compileWithData(model, json, modelPath, opts.data, (line) => io.stderr.write(line + "\n"));
  const seed = opts.seed ?? Math.floor(Math.random() * 2 ** 32);
  let prior: PriorSampler;
  try {
    prior = priorSampler(compiled, seed);
  } catch (e) {
    if (e instanceof ModelError) {
      throw modelError(`${e.message}. --prior makes exact draws only; to sample this prior with NUTS, run ppl sample on a copy of the model without its observe terms`, e);
    }
    throw e;
  }
  const generated = generatedColumns(compiled, seed, true);
  const logLik = logLikColumns(compiled, opts.logLik ?? false);
  const shown = selectVariables([...compiled.constrainedNames(), ...generated.names, ...logLik.names], opts.variables, true);
  info(`drawing ${opts.draws} exact prior draws per chain on the host (no MCMC; --warmup and the sampler and backend options are not used)`);
  const started = new Date().toISOString();
  let files: ChainFiles;
  try {
    files = new ChainFiles(
      dir, opts.chains, [...compiled.constrainedNames(), ...generated.names, ...logLik.names],
      (c) => [...priorConfig(opts, compiled.name, modelPath, seed, started, c, join(dir, `chain-${c + 1}.csv`)), ...layoutNodes({ data_hash: hashDataFile(opts.data), ...dataLayoutKeys(model, compiled) })],
      PRIOR_SAMPLER_COLUMNS,
    );
  } catch (e) {
    throw usageError(`cannot write into the output directory '${opts.output}': ${firstLine(e)}; choose another with --output`);
  }

  const controller = new AbortController();
  // Held through the summary too: a stop during it ends the command within STOP_WITHIN_SECONDS.
  const releaseSignals = stopOnSignals(controller);
  const summaryExpired = pastStopDeadline(controller.signal, STOP_WITHIN_SECONDS - 1);
  const t0 = performance.now();
  let last = t0;
  let done = 0;
  try {
    // lp__ and accept_stat__ stay 0, as fixed_param writes them.
    let row = new Float64Array(0);
    for (; done < opts.draws && !controller.signal.aborted; done++) {
      for (let c = 0; c < opts.chains; c++) {
        const values = logLik.row(generated.row(c, done, prior.at(c, done)));
        if (row.length !== PRIOR_SAMPLER_COLUMNS.length + values.length) row = new Float64Array(PRIOR_SAMPLER_COLUMNS.length + values.length);
        row.set(values, PRIOR_SAMPLER_COLUMNS.length);
        files.writeRow(c, row);
      }
      // A turn for the event loop now and then, so that Ctrl-C is seen.
      if (performance.now() - last >= 50) {
        await new Promise<void>((r) => setImmediate(r));
        last = performance.now();
      }
    }
  } catch (e) {
    releaseSignals();
    files.close();
    if (e instanceof ModelError) throw modelError(e.message, e);
    throw e;
  }
  const seconds = (performance.now() - t0) / 1000;
  files.close({ warmup: 0, sampling: seconds });
  if (done === 0) {
    releaseSignals();
    io.stderr.write(`interrupted by ${stoppedBy(controller.signal)} before the first prior draw; the CSV files in ${opts.output} hold their headers only\n`);
    return stopExitCode(stoppedBy(controller.signal));
  }
  const summary = await summarizeInTime(files.draws(), opts.maxDepth, summaryExpired);
  releaseSignals();
  files.release();
  if (summary === null) {
    const signal = stoppedBy(controller.signal);
    io.stderr.write(
      `interrupted by ${signal}: ${done} of ${opts.draws} prior draws per chain are in ${files.paths.length} valid CSV files in ${opts.output}, ` +
        `not summarized (there was no time left: a stop ends the command within ${STOP_WITHIN_SECONDS} s); \`ppl summary ${opts.output}\` prints the summary\n`,
    );
    return stopExitCode(signal);
  }
  writeFileSync(join(dir, "summary.json"), writeSummaryJson(summary));
  if (controller.signal.aborted) {
    const signal = stoppedBy(controller.signal);
    io.stderr.write(`interrupted by ${signal}: ${done} of ${opts.draws} prior draws per chain are in ${files.paths.length} valid CSV files in ${opts.output}, summarized in summary.json\n`);
    return stopExitCode(signal);
  }
  io.stdout.write(formatSummary(filterSummary(summary, shown), undefined, hiddenNote(summary, shown)));
  info(`wrote ${files.paths.map((p) => basename(p)).join(", ")} and summary.json to ${opts.output} (seed ${seed}, ${seconds.toFixed(1)}s)`);
  if (opts.strict && summary.warnings.length > 0) {
    io.stderr.write(`--strict: the diagnostics gave ${summary.warnings.length} warning${summary.warnings.length === 1 ? "" : "s"}; exiting with code 1\n`);
    return ExitCode.diagnosticsFailed;
  }
  return ExitCode.ok;
}

/** The settings header of one chain's CSV: CmdStan's for its fixed_param sampler, plus this tool's. */
function priorConfig(opts: SampleCommandOptions, name: string, modelPath: string, seed: number, started: string, chain: number, outputFile: string): ConfigNode[] {
  return [
    { key: "model", value: name },
    { key: "start_datetime", value: started },
    {
      key: "method",
      value: "sample",
      children: [
        {
          key: "sample",
          children: [
            { key: "num_samples", value: opts.draws },
            { key: "num_warmup", value: 0 },
            { key: "save_warmup", value: false },
            { key: "thin", value: 1 },
            { key: "algorithm", value: "fixed_param" },
            { key: "num_chains", value: opts.chains },
          ],
        },
      ],
    },
    { key: "id", value: chain + 1 },
    { key: "data", children: [{ key: "file", value: opts.data !== undefined ? resolve(opts.data) : "" }] },
    { key: "random", children: [{ key: "seed", value: seed }] },
    { key: "output", children: [{ key: "file", value: outputFile }] },
    { key: "model_file", value: resolve(modelPath) },
    { key: "prior", value: true },
  ];
}

/**
 * `ppl generate MODEL.ts --data D --fit DIR`: the generated quantities and predictive draws of a
 * model over the draws of an existing fit, as CmdStan's generate_quantities does. Each draw's
 * parameters are read from the fit's CSV files; the random streams are those of the fit's seed (its
 * header's, unless --seed is given), chain (the header's id) and draw, so that over a run of
 * `ppl sample` (or `ppl sample --prior`) with generated columns the command writes the same values
 * again. The output has the fit's sampler columns, the model's parameters and deterministics as the
 * fit holds them, then the generated quantities, the predictive draws (always) and, with --log-lik,
 * the log_lik columns.
 */
import { writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { dataLayoutKeys, fromStanCsvName, layoutNodes, toStanCsvName, writeSummaryJson, type ConfigNode } from "@ppl/ppl";
import { ChainFiles } from "../chain-files.ts";
import { compileWithData } from "../compile.ts";
import { ExitCode, usageError, type ExitCodeValue } from "../exit-codes.ts";
import { generatedColumns, type GeneratedColumns } from "../generated-columns.ts";
import type { CommandIO } from "../io.ts";
import { hashDataFile, shortHash } from "../data-hash.ts";
import { loadData } from "../load-data.ts";
import { firstLine, loadModel } from "../load-model.ts";
import { logLikColumns } from "../log-lik-columns.ts";
import { prepareOutputDir } from "../output-dir.ts";
import { lockOutputDir } from "../output-lock.ts";
import { readRun, summarizeDraws, type Run } from "../read-runs.ts";
import { runNotes } from "../run-notes.ts";
import { formatSummary } from "../summary-text.ts";

/** The options of `ppl generate`, as parsed by the command line. */
export interface GenerateCommandOptions {
  readonly data?: string;
  /** The fit's directory (or its CSV files). */
  readonly fit: string;
  readonly output: string;
  /** The seed of the random streams; the fit's own by default. */
  readonly seed?: number;
  readonly quiet: boolean;
  /** Also write the log_lik columns. */
  readonly logLik?: boolean;
  /** Run over a fit that sampled other data (a warning instead of a usage error). */
  readonly force?: boolean;
}

/** Runs `ppl generate`; returns the exit code. */
export async function generateCommand(modelPath: string, opts: GenerateCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const model = await loadModel(modelPath);
  const json = loadData(opts.data);
  const run = readRun([opts.fit]);
  try {
    return await generateFrom(run, model, json, modelPath, opts, io);
  } finally {
    run.release();
  }
}

// The generated quantities over a fit read (a chain's draws at a time from its spill).
async function generateFrom(run: Run, model: Awaited<ReturnType<typeof loadModel>>, json: ReturnType<typeof loadData>, modelPath: string, opts: GenerateCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const info = (line: string): void => {
    if (!opts.quiet) io.stderr.write(line + "\n");
  };
  for (const note of runNotes(run)) io.stderr.write(note + "\n");
  const chains = run.files.length;
  if (run.paths.some((p) => dirname(resolve(p)) === resolve(opts.output))) {
    throw usageError(`--output '${opts.output}' holds the fit's own files, which the command would overwrite; choose another directory with --output`);
  }
  const dir = await prepareOutputDir(opts.output, chains);
  // One writer per directory, as ppl sample: a second run into it is refused while this one writes (released on exit).
  lockOutputDir(dir, (line) => io.stderr.write(line + "\n"));
  const compiled = compileWithData(model, json, modelPath, opts.data, (line) => io.stderr.write(line + "\n"));

  // The fit's columns that this model reports, each [chain][draw].
  const reported = compiled.constrainedNames();
  const missing = reported.filter((n) => run.chains.parameters[n] === undefined);
  if (missing.length > 0) {
    const shown = missing.slice(0, 3).map(toStanCsvName).join(", ");
    throw usageError(`the fit '${opts.fit}' has no column${missing.length > 1 ? "s" : ""} ${shown}${missing.length > 3 ? ", …" : ""} of model '${compiled.name}'; give --fit the output directory of a run of this model`);
  }
  const dataHash = checkFitData(run.files[0]!.config, opts, io);
  // Where each reported parameter and each sampler column is among a chain's columns (read a chain at a time).
  const fileColumns = run.files[0]!.columns;
  const at = new Map(fileColumns.map((c, k) => [fromStanCsvName(c), k]));
  const reportedAt = reported.map((n) => at.get(n)!);
  const samplerColumns = fileColumns.filter((c) => c.endsWith("__"));
  const samplerAt = samplerColumns.map((c) => fileColumns.indexOf(c));
  const lengths = run.files.map((f) => f.drawCount);
  const draws = run.chains.drawsPerChain;
  if (lengths.some((n) => n !== draws)) io.stderr.write(`note: '${opts.fit}': the chains have ${lengths.join(", ")} draws; each is cut to the shortest (${draws})\n`);

  // Per chain: its seed and its chain id in the streams.
  const seeds = run.files.map((f, c) => opts.seed ?? seedOf(f.config["seed"], run.paths[c]!));
  const ids = run.files.map((f, c) => chainIdOf(f.config["id"], c));
  const perSeed = new Map<number, GeneratedColumns>();
  const columnsFor = (seed: number): GeneratedColumns => {
    let g = perSeed.get(seed);
    if (g === undefined) perSeed.set(seed, (g = generatedColumns(compiled, seed, true)));
    return g;
  };
  const generated = columnsFor(seeds[0]!);
  const logLik = logLikColumns(compiled, opts.logLik ?? false);
  if (generated.names.length === 0 && logLik.names.length === 0) {
    throw usageError(`model '${compiled.name}' has no generated quantities and observes nothing, so there is nothing to generate; declare some with m.generated(name, …)`);
  }

  const started = new Date().toISOString();
  let files: ChainFiles;
  try {
    files = new ChainFiles(
      dir, chains, [...reported, ...generated.names, ...logLik.names],
      (c) => [
        ...generateConfig(opts, compiled.name, modelPath, run.paths[c]!, seeds[c]!, ids[c]!, started, join(dir, `chain-${c + 1}.csv`), draws, run.maxTreeDepth),
        ...layoutNodes({ data_hash: dataHash, ...dataLayoutKeys(model, compiled) }),
      ],
      samplerColumns,
    );
  } catch (e) {
    throw usageError(`cannot write into the output directory '${opts.output}': ${firstLine(e)}; choose another with --output`);
  }
  const t0 = performance.now();
  const params = new Float64Array(reported.length);
  let row = new Float64Array(0);
  try {
    for (let c = 0; c < chains; c++) {
      const gen = columnsFor(seeds[c]!);
      const chain = run.chainColumns(c);
      for (let s = 0; s < draws; s++) {
        for (let j = 0; j < reportedAt.length; j++) params[j] = chain[reportedAt[j]!]![s]!;
        const values = logLik.row(gen.row(ids[c]!, s, params));
        if (row.length !== samplerColumns.length + values.length) row = new Float64Array(samplerColumns.length + values.length);
        for (let k = 0; k < samplerColumns.length; k++) row[k] = chain[samplerAt[k]!]![s]!;
        row.set(values, samplerColumns.length);
        files.writeRow(c, row);
      }
    }
  } finally {
    files.close({ warmup: 0, sampling: (performance.now() - t0) / 1000 });
  }
  const summary = summarizeDraws(files.draws(), run.maxTreeDepth);
  files.release();
  writeFileSync(join(dir, "summary.json"), writeSummaryJson(summary));
  io.stdout.write(formatSummary(summary));
  const seedText = [...new Set(seeds)].join(", ");
  info(`wrote ${files.paths.map((p) => basename(p)).join(", ")} and summary.json to ${opts.output} (${draws} draws per chain of ${opts.fit}, seed ${seedText})`);
  return ExitCode.ok;
}

// The data file's hash, checked against the one the fit's header records: other data than the
// fit sampled is a usage error, or with --force a loud warning (predictions for new covariates).
function checkFitData(config: Readonly<Record<string, string>>, opts: GenerateCommandOptions, io: CommandIO): string {
  const hash = hashDataFile(opts.data);
  const recorded = config["data_hash"];
  if (recorded === undefined || recorded === hash) return hash;
  const given = opts.data !== undefined ? `--data '${opts.data}'` : "no --data";
  const msg = `${given} is not the data the fit '${opts.fit}' sampled (data_hash ${shortHash(recorded)} in its header${config["data.file"] ? `, from '${config["data.file"]}'` : ""}; ${shortHash(hash)} given)`;
  if (!opts.force) throw usageError(`${msg}; give the fit's data file, or --force to generate with these data (predictions for new data)`);
  io.stderr.write(`WARNING: ${msg}; generating with these data anyway (--force)\n`);
  return hash;
}

// The seed in a fit's header, which the streams of its generated quantities were keyed by.
function seedOf(text: string | undefined, path: string): number {
  const v = text === undefined ? NaN : Number(text);
  if (!Number.isSafeInteger(v) || v < 0) {
    throw usageError(`'${path}' has ${text === undefined ? "no seed in its header" : `the seed '${text}' in its header, not an integer in [0, 2^53)`}; give one with --seed`);
  }
  return v;
}

// The chain's 0-based id in the streams: the header's 1-based id, or its position among the files.
function chainIdOf(text: string | undefined, position: number): number {
  const v = text === undefined ? NaN : Number(text);
  return Number.isSafeInteger(v) && v >= 1 ? v - 1 : position;
}

/** The settings header of one output file: CmdStan's for generate_quantities, plus this tool's. */
function generateConfig(
  opts: GenerateCommandOptions, name: string, modelPath: string, fitFile: string,
  seed: number, chainId: number, started: string, outputFile: string, draws: number, maxDepth: number,
): ConfigNode[] {
  return [
    { key: "model", value: name },
    { key: "start_datetime", value: started },
    { key: "method", value: "generate_quantities", children: [{ key: "generate_quantities", children: [{ key: "fitted_params", value: resolve(fitFile) }] }] },
    { key: "id", value: chainId + 1 },
    { key: "data", children: [{ key: "file", value: opts.data !== undefined ? resolve(opts.data) : "" }] },
    { key: "random", children: [{ key: "seed", value: seed }] },
    { key: "output", children: [{ key: "file", value: outputFile }] },
    { key: "model_file", value: resolve(modelPath) },
    // What `ppl summary` reads back: the draws the file holds, the fit's tree-depth limit.
    { key: "num_samples", value: draws },
    { key: "max_depth", value: maxDepth },
  ];
}

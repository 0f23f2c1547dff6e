/** `ppl summary FILES_OR_DIR…`: summarize Stan CSV files (ours or CmdStan's) as a table or JSON. */
import { summaryToJson } from "@ppl/ppl/diagnostics";
import { ExitCode, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { approximationMethod } from "../approximation-files.ts";
import { printApproximationSummary } from "../approximation-summary.ts";
import { readRun, summarizeRun, type Run } from "../read-runs.ts";
import { runNotes } from "../run-notes.ts";
import { formatSummary } from "../summary-text.ts";
import { percentileColumns, withPercentiles } from "../percentiles.ts";
import { pickParameters, selectVariables } from "../variable-filter.ts";
import { nestedRhatLines, nestedRhats, runSuperchains, withNestedRhat } from "../nested-rhat-lines.ts";

/** Options of `ppl summary`. */
export interface SummaryCommandOptions {
  readonly json: boolean;
  /** Percentiles for the quantile columns in place of 5, 50, 95 (stansummary's --percentiles). */
  readonly percentiles?: readonly number[];
  /** The variables shown (Stan's rules: a base name selects all its elements); all by default. */
  readonly variables?: readonly string[];
  /** Superchains for nested R-hat (contiguous groups of chains); by default the files' header's (`ppl sample --superchains`). */
  readonly superchains?: number;
}

/** Prints the summary of the files or directories given; returns the exit code. */
export function summaryCommand(paths: readonly string[], opts: SummaryCommandOptions, io: CommandIO): ExitCodeValue {
  const all = readRun(paths);
  try {
    return printSummary(all, opts, io);
  } finally {
    all.release();
  }
}

// The summary of a run read (its draws taken from the spill a parameter at a time).
function printSummary(all: Run, opts: SummaryCommandOptions, io: CommandIO): ExitCodeValue {
  const run = { ...all, chains: pickParameters(all.chains, selectVariables(Object.keys(all.chains.parameters), opts.variables, false)) };
  // optimize.csv, laplace.csv, variational.csv, pathfinder.csv: no Markov chain, so no chain diagnostics.
  const method = approximationMethod(run.files[0]!);
  if (method !== undefined) {
    for (const note of runNotes(run)) io.stderr.write(note + "\n");
    printApproximationSummary(run, method, opts, io);
    return ExitCode.ok;
  }
  const summary = summarizeRun(run);
  for (const note of runNotes(run)) io.stderr.write(note + "\n");
  const quantiles = opts.percentiles !== undefined ? percentileColumns(run.chains, opts.percentiles) : undefined;
  const k = runSuperchains(run.files, summary.chains, opts.superchains);
  const nested = k === undefined ? [] : nestedRhats(run.chains.parameters, summary.parameters.map((p) => p.name), k);
  if (opts.json) {
    const json = withNestedRhat(summaryToJson(summary), nested);
    io.stdout.write(JSON.stringify(quantiles ? withPercentiles(json, summary, quantiles) : json, null, 2) + "\n");
    return ExitCode.ok;
  }
  const lengths = run.files.map((f) => f.drawCount);
  if (lengths.some((n) => n !== run.chains.drawsPerChain)) {
    io.stderr.write(`note: the chains have ${lengths.join(", ")} draws; each is cut to the shortest (${run.chains.drawsPerChain})\n`);
  }
  io.stdout.write(formatSummary(summary, quantiles));
  if (k !== undefined) io.stdout.write(nestedRhatLines(nested, k, summary.chains));
  return ExitCode.ok;
}

/**
 * `ppl merge DIR… -o OUT`: the chain groups of one run (`ppl sample --first-chain K`, one per
 * process or machine) gathered into one output directory, as one run of all chains would have
 * left it. The files are copied byte for byte; their headers must agree (read-runs.ts: checkOneRun).
 */
import { copyFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { writeSummaryJson } from "@ppl/ppl";
import { ExitCode, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { firstLine } from "../load-model.ts";
import { prepareOutputDir } from "../output-dir.ts";
import { readRun, summarizeRun, type Run } from "../read-runs.ts";
import { runNotes } from "../run-notes.ts";

/** Options of `ppl merge`. */
export interface MergeCommandOptions {
  /** The directory to write the merged run into. */
  readonly output: string;
}

/** Copies the chains of every directory into OUT as chain-ID.csv, writes summary.json; returns the exit code. */
export async function mergeCommand(dirs: readonly string[], opts: MergeCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const run = readRun(dirs);
  try {
    return await mergeRun(run, dirs, opts, io);
  } finally {
    run.release();
  }
}

// Copies a run read from `dirs` into OUT with its summary.json.
async function mergeRun(run: Run, dirs: readonly string[], opts: MergeCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  for (const note of runNotes(run)) io.stderr.write(note + "\n");
  const out = resolve(opts.output);
  const inputs = new Set(run.paths.map((p) => resolve(p, "..")));
  if (inputs.has(out)) throw usageError(`-o '${opts.output}' is one of the directories being merged; write the merged run into another directory`);
  // Chain ids name the files, so that OUT reads as the run of all chains would have written it.
  const names = run.files.map((f, i) => (f.config["id"] !== undefined ? `chain-${f.config["id"]}.csv` : basename(run.paths[i]!)));
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw usageError(`two of the files would both be '${twice}' in '${opts.output}'; give each chain once`);
  const dir = await prepareOutputDir(opts.output, 0);
  const stale = readdirSync(dir).filter((n) => n.toLowerCase().endsWith(".csv") && !names.includes(n));
  if (stale.length > 0) {
    throw usageError(`'${opts.output}' already holds ${stale.slice(0, 3).join(", ")}${stale.length > 3 ? ", …" : ""}, which would be read as chains of the merged run; choose an empty directory`);
  }
  try {
    run.paths.forEach((p, i) => copyFileSync(p, join(dir, names[i]!)));
    writeFileSync(join(dir, "summary.json"), writeSummaryJson(summarizeRun(run)));
  } catch (e) {
    throw usageError(`cannot write the merged run into '${opts.output}': ${firstLine(e)}; choose another directory with -o`);
  }
  io.stderr.write(`merged ${run.files.length} chains from ${dirs.length} ${dirs.length === 1 ? "directory" : "directories"} into ${opts.output} (${[...names].sort((a, b) => a.localeCompare(b, "en", { numeric: true })).join(", ")}, summary.json)\n`);
  return ExitCode.ok;
}

/** `ppl report DIR`: one self-contained HTML file with the summary, warnings and SVG plots. */
import { writeFileSync } from "node:fs";
import { MAX_PAIRS, renderReport } from "../report/html.ts";
import { logScaled } from "../report/log-scale.ts";
import { observationsOf } from "../report/observations.ts";
import { ExitCode, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { firstLine } from "../load-model.ts";
import { readRun, summarizeRun, type Run } from "../read-runs.ts";
import { runNotes } from "../run-notes.ts";
import { hiddenNote, pickParameters, selectVariables } from "../variable-filter.ts";

/** Options of `ppl report`. */
export interface ReportCommandOptions {
  /** The HTML file to write. */
  readonly output: string;
  /** Parameters of the pair plot, by Stan's rules (a base name selects all its elements). */
  readonly pairs?: string[];
  /** The variables the report shows (Stan's rules); by default all but log_lik and <field>_rep. */
  readonly variables?: readonly string[];
  /** Output directory of `ppl sample --prior`: the prior-against-posterior panels. */
  readonly prior?: string;
  /** Parameters on a log axis (Stan's rules), or `auto` (see report/log-scale.ts). */
  readonly logScale?: readonly string[];
  /** The data file of the observed values; by default the one the run's header names. */
  readonly data?: string;
}

/** Writes the report of the run in `dir` (or of the chain groups of one run in several directories); returns the exit code. */
export function reportCommand(dirs: string | readonly string[], opts: ReportCommandOptions, io: CommandIO): ExitCodeValue {
  const list = typeof dirs === "string" ? [dirs] : dirs;
  const all = readRun(list);
  let prior: Run | undefined;
  try {
    prior = opts.prior !== undefined ? priorRun(opts.prior, list) : undefined;
    return writeReport(all, list, prior, opts, io);
  } finally {
    all.release();
    prior?.release();
  }
}

// The report of a run read (its draws taken from the spill a parameter at a time).
function writeReport(all: Run, list: readonly string[], prior: Run | undefined, opts: ReportCommandOptions, io: CommandIO): ExitCodeValue {
  for (const note of runNotes(all)) io.stderr.write(note + "\n");
  const names = Object.keys(all.chains.parameters);
  const shown = selectVariables(names, opts.variables, true);
  const run = { ...all, chains: pickParameters(all.chains, shown) };
  const pairs = opts.pairs === undefined ? undefined : pairNames(names, shown.names, opts.pairs, io);
  const summary = summarizeRun(run);
  // The note counts the warnings about what it leaves out, so it reads the whole run's summary only then.
  const note = shown.hidden.size > 0 ? hiddenNote(summarizeRun(all), shown) : undefined;
  if (note !== undefined) io.stderr.write(`note: ${note}\n`);
  const observations = observationsOf(all.chains, all.files[0]!.config, opts.data);
  for (const n of observations.notes) io.stderr.write(`note: ${n}\n`);
  const logScale = logScaled(run.chains.parameters, shown.names, opts.logScale);
  const html = renderReport(run, summary, {
    source: list.join(", "),
    observations,
    logScale,
    ...(pairs ? { pairs } : {}),
    ...(note !== undefined ? { note } : {}),
    ...(prior !== undefined ? { prior: prior.chains.parameters } : {}),
    ...(all.warmup !== undefined ? { warmup: all.warmup.parameters } : {}),
  });
  try {
    writeFileSync(opts.output, html);
  } catch (e) {
    throw usageError(`cannot write the report to '${opts.output}': ${firstLine(e)}; choose another path with -o`);
  }
  io.stderr.write(`wrote ${opts.output} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB)\n`);
  return ExitCode.ok;
}

// --pairs by Stan's rules (tau,theta: tau and every theta[j]), among the variables the report shows; beyond MAX_PAIRS, the first ones, said on stderr.
function pairNames(all: readonly string[], shown: readonly string[], wanted: readonly string[], io: CommandIO): string[] {
  const picked = selectVariables(all, wanted, false, "--pairs").names;
  const visible = new Set(shown);
  const out = picked.filter((n) => visible.has(n));
  if (out.length < picked.length) {
    const left = picked.filter((n) => !visible.has(n));
    throw usageError(`--pairs: ${left.slice(0, 3).join(", ")}${left.length > 3 ? ", …" : ""} ${left.length > 1 ? "are" : "is"} left out of the report; add ${left.length > 1 ? "them" : "it"} to --variables`);
  }
  if (out.length > MAX_PAIRS) io.stderr.write(`note: --pairs selects ${out.length} variables; the pair plot shows the first ${MAX_PAIRS} (${out.slice(0, MAX_PAIRS).join(", ")})\n`);
  return out.slice(0, MAX_PAIRS);
}

// The prior run in `dir`, checked to be one (its header says prior = 1).
function priorRun(dir: string, posterior: readonly string[]): Run {
  if (posterior.includes(dir)) throw usageError(`--prior '${dir}' is the run itself; give the directory of \`ppl sample --prior\``);
  const run = readRun([dir]);
  if (run.files[0]!.config["prior"] !== "1") {
    run.release();
    throw usageError(`--prior '${dir}' is not the output of \`ppl sample --prior\`; give the directory of a prior run`);
  }
  return run;
}

/** `ppl report DIR`: one self-contained HTML file with the summary, warnings and SVG plots. */
import { writeFileSync } from "node:fs";
import { renderReport } from "../report/html.ts";
import { ExitCode, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { firstLine } from "../load-model.ts";
import { readRun, summarizeRun } from "../read-runs.ts";
import { runNotes } from "../run-notes.ts";

/** Options of `ppl report`. */
export interface ReportCommandOptions {
  /** The HTML file to write. */
  readonly output: string;
  /** Parameters of the pair plot. */
  readonly pairs?: string[];
}

/** Writes the report of the run in `dir` (or of the chain groups of one run in several directories); returns the exit code. */
export function reportCommand(dirs: string | readonly string[], opts: ReportCommandOptions, io: CommandIO): ExitCodeValue {
  const list = typeof dirs === "string" ? [dirs] : dirs;
  const run = readRun(list);
  for (const note of runNotes(run)) io.stderr.write(note + "\n");
  const known = Object.keys(run.chains.parameters);
  const unknown = (opts.pairs ?? []).filter((p) => !(p in run.chains.parameters));
  if (unknown.length > 0) {
    throw usageError(`--pairs: ${unknown.map((u) => `'${u}'`).join(", ")} ${unknown.length > 1 ? "are not parameters" : "is not a parameter"} of this run (parameters: ${known.slice(0, 20).join(", ")}${known.length > 20 ? ", …" : ""})`);
  }
  const html = renderReport(run, summarizeRun(run), { source: list.join(", "), ...(opts.pairs ? { pairs: opts.pairs } : {}) });
  try {
    writeFileSync(opts.output, html);
  } catch (e) {
    throw usageError(`cannot write the report to '${opts.output}': ${firstLine(e)}; choose another path with -o`);
  }
  io.stderr.write(`wrote ${opts.output} (${(Buffer.byteLength(html) / 1024).toFixed(0)} KiB)\n`);
  return ExitCode.ok;
}

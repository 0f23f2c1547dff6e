import { type ConfigNode, renderConfig } from "./config.ts";
import { toStanCsvName } from "./names.ts";
import { formatNumber } from "./number-format.ts";
import type { TextSink } from "./sink.ts";

import { SAMPLER_COLUMNS } from "./sampler-columns.ts";

/** What goes at the top of a Stan CSV file. */
export interface StanCsvHeader {
  /** Settings, rendered as `# key = value` lines (see `sampleConfig`). */
  readonly config: readonly ConfigNode[];
  /** Parameter names, bracket (`theta[1]`) or dotted (`theta.1`); written dotted. */
  readonly parameters: readonly string[];
  /** Columns before the parameters; defaults to `SAMPLER_COLUMNS`. */
  readonly samplerColumns?: readonly string[];
}

/** Step size and inverse metric found by adaptation. */
export interface Adaptation {
  readonly stepsize: number;
  /** Diagonal (a vector) or dense (rows of a matrix) inverse mass matrix. */
  readonly inverseMetric: readonly number[] | readonly (readonly number[])[];
}

/** Wall-clock seconds spent in each phase. */
export interface Timing {
  readonly warmup: number;
  readonly sampling: number;
  readonly total?: number;
}

function joinNumbers(values: ArrayLike<number>, separator: string): string {
  const parts = new Array<string>(values.length);
  for (let i = 0; i < values.length; i++) parts[i] = formatNumber(values[i]!);
  return parts.join(separator);
}

/** Seconds as CmdStan prints them, but without its rounding. */
function seconds(x: number): string {
  return String(x);
}

/**
 * Streaming Stan CSV writer: the header goes out when it is created, then
 * each draw as its own line the moment it is appended, so a file cut short
 * by an interrupted run is still a valid Stan CSV file with every draw so far.
 */
export class StanCsvWriter {
  readonly columns: readonly string[];
  private readonly sink: TextSink;
  private closed = false;
  private adaptationWritten = false;
  // One row's formatted fields, reused row after row: the array was a row's garbage beside its text.
  private readonly fields: string[];

  constructor(sink: TextSink, header: StanCsvHeader) {
    this.sink = sink;
    const sampler = header.samplerColumns ?? SAMPLER_COLUMNS;
    this.columns = [...sampler, ...header.parameters.map(toStanCsvName)];
    this.fields = new Array<string>(this.columns.length).fill("");
    const lines = renderConfig(header.config);
    lines.push(this.columns.join(","));
    sink.write(lines.join("\n") + "\n");
  }

  /** Writes the adaptation block (after warmup draws, before sampling draws). */
  writeAdaptation(adaptation: Adaptation): void {
    this.assertOpen();
    if (this.adaptationWritten) throw new Error("the adaptation block was already written");
    this.adaptationWritten = true;
    const lines = ["# Adaptation terminated", `# Step size = ${formatNumber(adaptation.stepsize)}`];
    const metric = adaptation.inverseMetric;
    if (metric.length > 0 && typeof metric[0] !== "number") {
      lines.push("# Elements of inverse mass matrix:");
      for (const row of metric as readonly (readonly number[])[]) lines.push(`# ${joinNumbers(row, ", ")}`);
    } else {
      lines.push("# Diagonal elements of inverse mass matrix:");
      lines.push(`# ${joinNumbers(metric as readonly number[], ", ")}`);
    }
    this.sink.write(lines.join("\n") + "\n");
  }

  /** Writes a comment line (`# text`) between draws: what happened to the run at that point. */
  writeComment(text: string): void {
    this.assertOpen();
    if (text.includes("\n")) throw new Error("a CSV comment is one line");
    this.sink.write(`# ${text}\n`);
  }

  /** Appends one draw: sampler columns then parameters, in header order. */
  writeDraw(row: ArrayLike<number>): void {
    this.assertOpen();
    if (row.length !== this.columns.length) {
      throw new Error(`a draw has ${row.length} values but the file has ${this.columns.length} columns`);
    }
    // JavaScript's number-to-string is the shortest text that reads back as the same double (the
    // language requires it) and native: docs/cpu-performance.md measures it against the rest of a row.
    const fields = this.fields;
    for (let i = 0; i < fields.length; i++) fields[i] = formatNumber(row[i]!);
    this.sink.write(fields.join(",") + "\n");
  }

  /** Writes the timing footer (if given) and closes the sink. */
  close(timing?: Timing): void {
    if (this.closed) return;
    if (timing !== undefined) {
      const total = timing.total ?? timing.warmup + timing.sampling;
      const pad = "#                ";
      this.sink.write(
        [
          "# ",
          `#  Elapsed Time: ${seconds(timing.warmup)} seconds (Warm-up)`,
          `${pad}${seconds(timing.sampling)} seconds (Sampling)`,
          `${pad}${seconds(total)} seconds (Total)`,
          "# ",
        ].join("\n") + "\n",
      );
    }
    this.closed = true;
    this.sink.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("the Stan CSV writer is already closed");
  }
}

/** Opens a streaming Stan CSV writer on `sink`, writing the header at once. */
export function writeStanCsv(sink: TextSink, header: StanCsvHeader): StanCsvWriter {
  return new StanCsvWriter(sink, header);
}

import { StanCsvParser, type ReadAdaptation, type ReadTiming } from "./stan-csv-parser.ts";

export type { ReadAdaptation, ReadTiming } from "./stan-csv-parser.ts";

/** Contents of one Stan CSV file (one chain). */
export interface StanCsv {
  /**
   * Header settings, each under its leaf key (first occurrence wins, e.g.
   * `num_samples`) and under `parent.key` (e.g. `data.file`, `output.file`).
   */
  readonly config: Record<string, string>;
  /** Column names as written in the file (Stan's dotted form, e.g. `theta.1`). */
  readonly columns: string[];
  /** Sampling draws, one array per column. */
  readonly draws: Float64Array[];
  /** Warmup draws (present when the run saved them), one array per column. */
  readonly warmupDraws: Float64Array[];
  readonly adaptation?: ReadAdaptation;
  readonly timing?: ReadTiming;
  /** True when the last row lacked its newline (an interrupted write) and was skipped. */
  readonly truncated: boolean;
}

/**
 * Parses a Stan CSV file held in a string, ours or CmdStan's: settings comments, the column
 * line, warmup draws (if saved), the adaptation block, sampling draws and the timing footer, by
 * StanCsvParser's rules (a last row cut short is dropped and `truncated` set).
 */
export function readStanCsv(text: string): StanCsv {
  const rows: Float64Array[] = [];
  const parser = new StanCsvParser((values) => rows.push(values));
  const lines = text.split(/\r?\n/);
  // A trailing newline leaves one empty string behind; it is not a row.
  for (let i = 0; i < lines.length; i++) parser.line(lines[i]!, i + 1);
  const { warmupRows, rows: _rows, ...head } = parser.end(text.endsWith("\n"));
  const byColumn = (from: number, to: number): Float64Array[] =>
    head.columns.map((_, c) => {
      const out = new Float64Array(to - from);
      for (let r = from; r < to; r++) out[r - from] = rows[r]![c]!;
      return out;
    });
  return { ...head, draws: byColumn(warmupRows, rows.length), warmupDraws: byColumn(0, warmupRows) };
}

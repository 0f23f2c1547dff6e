import { isNumberText, parseNumber } from "./number-format.ts";

/** Result of adaptation as recorded in a Stan CSV file. */
export interface ReadAdaptation {
  readonly stepsize: number;
  /** A vector for a diagonal metric, rows of a matrix for a dense one. */
  readonly inverseMetric: number[] | number[][];
}

/** Phase timings in seconds, from the footer. */
export interface ReadTiming {
  readonly warmup: number;
  readonly sampling: number;
  readonly total: number;
}

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

function commentBody(line: string): string {
  return line.replace(/^#/, "");
}

function parseNumberList(text: string): number[] | undefined {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === "")) return undefined;
  if (!parts.every(isNumberText)) return undefined;
  return parts.map(parseNumber);
}

/** Reads CmdStan-style `# key = value` settings, tracking sections by indentation. */
function readConfigLine(
  body: string,
  stack: Array<{ indent: number; key: string }>,
  config: Record<string, string>,
): void {
  const indent = body.length - body.trimStart().length;
  const text = body.trim();
  if (text === "") return;
  while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
  const eq = text.indexOf("=");
  const key = (eq < 0 ? text : text.slice(0, eq)).trim();
  if (eq >= 0 && key !== "" && !/\s/.test(key)) {
    const value = text
      .slice(eq + 1)
      .trim()
      .replace(/\s*\(Default\)$/, "");
    if (!(key in config)) config[key] = value;
    const parent = stack[stack.length - 1];
    if (parent !== undefined) config[`${parent.key}.${key}`] = value;
  }
  // A key line can also open a section (`method = sample` above `sample`).
  if (key !== "" && !/\s/.test(key)) stack.push({ indent, key });
}

/** True when `text` is not empty and holds only digits, '.', 'e', 'E', '+' and '-'. */
function isPlainDecimal(text: string): boolean {
  const n = text.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    // 0-9, '.', '+', '-', 'e', 'E'
    if (!((c >= 48 && c <= 57) || c === 46 || c === 43 || c === 45 || c === 101 || c === 69)) return false;
  }
  return true;
}

const TIMING = /([0-9.eE+-]+|nan|inf)\s+seconds\s+\((Warm-up|Sampling|Total)\)/i;

/**
 * Parses a Stan CSV file, ours or CmdStan's: settings comments, the column
 * line, warmup draws (if saved), the adaptation block, sampling draws and the
 * timing footer. Comment lines may appear anywhere. A final row without its
 * newline (cut short by an interrupted write) is dropped and `truncated` set;
 * any other malformed row is an error naming its line.
 */
export function readStanCsv(text: string): StanCsv {
  const lines = text.split(/\r?\n/);
  // A trailing newline leaves one empty string behind; it is not a row.
  const endsWithNewline = text.endsWith("\n");
  const config: Record<string, string> = {};
  const stack: Array<{ indent: number; key: string }> = [];
  let columns: string[] | undefined;
  const rows: Float64Array[] = [];
  let rowsBeforeAdaptation: number | undefined;
  let stepsize: number | undefined;
  let metricKind: "diag" | "dense" | undefined;
  const metricRows: number[][] = [];
  let collectingMetric = false;
  const timing: { warmup?: number; sampling?: number; total?: number } = {};
  let truncated = false;
  let lastContentLine = lines.length - 1;
  while (lastContentLine >= 0 && lines[lastContentLine]!.trim() === "") lastContentLine--;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (line.trim() === "") {
      collectingMetric = false;
      continue;
    }
    if (line.startsWith("#")) {
      const body = commentBody(line);
      const t = body.trim();
      if (columns === undefined) {
        readConfigLine(body, stack, config);
        continue;
      }
      if (collectingMetric) {
        const values = parseNumberList(t);
        if (values !== undefined) {
          metricRows.push(values);
          // A diagonal metric is one line; a dense one continues while lines are numbers.
          if (metricKind === "diag") collectingMetric = false;
          continue;
        }
        collectingMetric = false;
      }
      if (/^Adaptation terminated/i.test(t)) {
        rowsBeforeAdaptation = rows.length;
      } else if (/^Step size\s*=/i.test(t)) {
        stepsize = parseNumber(t.slice(t.indexOf("=") + 1));
      } else if (/^Diagonal elements of inverse mass matrix:?$/i.test(t)) {
        metricKind = "diag";
        collectingMetric = true;
      } else if (/^Elements of inverse mass matrix:?$/i.test(t)) {
        metricKind = "dense";
        collectingMetric = true;
      } else {
        const m = TIMING.exec(t);
        if (m !== null) {
          const value = parseNumber(m[1]!);
          const phase = m[2]!.toLowerCase();
          if (phase === "warm-up") timing.warmup = value;
          else if (phase === "sampling") timing.sampling = value;
          else timing.total = value;
        }
      }
      continue;
    }
    collectingMetric = false;
    if (columns === undefined) {
      columns = line.split(",").map((s) => s.trim());
      continue;
    }
    // Every complete row ends with a newline, so a last line without one was
    // cut by an interrupted write, even if its fields happen to parse.
    if (i === lastContentLine && !endsWithNewline) {
      truncated = true;
      continue;
    }
    const fields = line.split(",");
    const values = new Float64Array(fields.length);
    if (fields.length !== columns.length) {
      throw new Error(
        `Stan CSV line ${lineNo}: expected ${columns.length} numeric fields, got ${fields.length}: "${line.slice(0, 80)}"`,
      );
    }
    for (let k = 0; k < fields.length; k++) {
      const field = fields[k]!;
      // A plain decimal (what rows of draws hold, as a rule) is read at once: over these characters
      // Number accepts exactly the decimals that parseNumber's pattern does, and rejects the rest
      // as NaN, which then take parseNumber's way (nan and inf spellings, blanks, errors). Reading
      // every field through the pattern twice was a fifth of `ppl summary`'s time.
      let value = isPlainDecimal(field) ? Number(field) : NaN;
      if (Number.isNaN(value)) {
        if (!isNumberText(field)) {
          throw new Error(
            `Stan CSV line ${lineNo}: field ${k + 1} (column '${columns[k]}') is ${JSON.stringify(field.slice(0, 40))}, not a number`,
          );
        }
        value = parseNumber(field);
      }
      values[k] = value;
    }
    rows.push(values);
  }
  if (columns === undefined) throw new Error("Stan CSV has no column header line");

  const warmupCount = countWarmup(rows.length, rowsBeforeAdaptation, config);
  const byColumn = (from: number, to: number): Float64Array[] =>
    columns!.map((_, c) => {
      const out = new Float64Array(to - from);
      for (let r = from; r < to; r++) out[r - from] = rows[r]![c]!;
      return out;
    });

  let adaptation: ReadAdaptation | undefined;
  if (stepsize !== undefined || metricRows.length > 0) {
    adaptation = {
      stepsize: stepsize ?? NaN,
      inverseMetric: metricKind === "dense" ? metricRows : (metricRows[0] ?? []),
    };
  }
  const hasTiming = timing.warmup !== undefined || timing.sampling !== undefined || timing.total !== undefined;
  return {
    config,
    columns,
    draws: byColumn(warmupCount, rows.length),
    warmupDraws: byColumn(0, warmupCount),
    ...(adaptation !== undefined ? { adaptation } : {}),
    ...(hasTiming
      ? {
          timing: {
            warmup: timing.warmup ?? NaN,
            sampling: timing.sampling ?? NaN,
            total: timing.total ?? (timing.warmup ?? NaN) + (timing.sampling ?? NaN),
          },
        }
      : {}),
    truncated,
  };
}

/**
 * Number of leading warmup rows: those before "Adaptation terminated" when the
 * file has that line; otherwise, if the settings say warmup was saved, up to
 * ceil(num_warmup / thin) rows (a run cut short during warmup has only those).
 */
function countWarmup(rows: number, rowsBeforeAdaptation: number | undefined, config: Record<string, string>): number {
  if (rowsBeforeAdaptation !== undefined) return rowsBeforeAdaptation;
  const saveWarmup = config["save_warmup"];
  if (saveWarmup !== "1" && saveWarmup?.toLowerCase() !== "true") return 0;
  const numWarmup = Number(config["num_warmup"] ?? "0");
  const thin = Number(config["thin"] ?? "1") || 1;
  if (!Number.isFinite(numWarmup) || numWarmup <= 0) return 0;
  return Math.min(rows, Math.ceil(numWarmup / thin));
}

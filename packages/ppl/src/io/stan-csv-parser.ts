/**
 * Stan CSV read a line at a time: the settings comments, the column line, the adaptation block and
 * the timing footer are kept, and each row of draws is handed to a callback as it is read, so that
 * a file of millions of draws can be streamed into a spill (the CLI's readers) or gathered in memory
 * (`readStanCsv`) by the same rules.
 */
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

/** What a Stan CSV file says besides its rows of draws, known once the whole file is read. */
export interface StanCsvHead {
  /** Header settings, each under its leaf key (first occurrence wins) and under `parent.key`. */
  readonly config: Record<string, string>;
  /** Column names as written in the file (Stan's dotted form, e.g. `theta.1`). */
  readonly columns: string[];
  /** Rows read (warmup and sampling draws together). */
  readonly rows: number;
  /** The leading rows that are warmup draws (saved with save_warmup). */
  readonly warmupRows: number;
  readonly adaptation?: ReadAdaptation;
  readonly timing?: ReadTiming;
  /** True when the last row lacked its newline (an interrupted write) and was skipped. */
  readonly truncated: boolean;
}

const TIMING = /([0-9.eE+-]+|nan|inf)\s+seconds\s+\((Warm-up|Sampling|Total)\)/i;

/**
 * A Stan CSV file fed line by line (`line`, without its line end, numbered from 1), then `end`.
 * Comment lines may appear anywhere. A row is handed on only once a later line shows that it was
 * not the file's last: a final row without its newline (cut short by an interrupted write) is
 * dropped and `truncated` set; any other malformed row is an error naming its line.
 */
export class StanCsvParser {
  private readonly config: Record<string, string> = {};
  private readonly stack: Array<{ indent: number; key: string }> = [];
  private columns: string[] | undefined;
  private rows = 0;
  private rowsBeforeAdaptation: number | undefined;
  private stepsize: number | undefined;
  private metricKind: "diag" | "dense" | undefined;
  private readonly metricRows: number[][] = [];
  private collectingMetric = false;
  private readonly timing: { warmup?: number; sampling?: number; total?: number } = {};
  // The last row seen, parsed when a later non-blank line comes (it was complete) or at the end.
  private pending: { text: string; lineNo: number } | undefined;

  // One array for every row, where the caller copies each row's values out (`reuseRow`).
  private shared: Float64Array | undefined;

  /**
   * `row` receives each complete row's values and its line number: a new array each time, or with
   * `reuseRow` one array filled anew for every row (a streaming reader copies the values out, and
   * a million rows' arrays need not wait for the garbage collector).
   */
  constructor(private readonly row: (values: Float64Array, lineNo: number) => void, private readonly reuseRow = false) {}

  /** The column names, once the column line has been read. */
  get columnNames(): readonly string[] | undefined {
    return this.columns;
  }

  /** Reads one line (without its line end). */
  line(text: string, lineNo: number): void {
    if (text.trim() === "") {
      this.collectingMetric = false;
      return;
    }
    this.flushPending();
    if (text.startsWith("#")) {
      this.comment(text.replace(/^#/, ""));
      return;
    }
    this.collectingMetric = false;
    if (this.columns === undefined) {
      this.columns = headerColumns(text, lineNo);
      return;
    }
    this.pending = { text, lineNo };
  }

  /** Ends the file; `endsWithNewline`: whether its last character was a newline (else its last row, if last, is cut short). */
  end(endsWithNewline: boolean): StanCsvHead {
    let truncated = false;
    if (this.pending !== undefined) {
      if (endsWithNewline) this.flushPending();
      else truncated = true;
      this.pending = undefined;
    }
    const columns = this.columns;
    if (columns === undefined) throw new Error("Stan CSV has no column header line");
    let adaptation: ReadAdaptation | undefined;
    if (this.stepsize !== undefined || this.metricRows.length > 0) {
      adaptation = { stepsize: this.stepsize ?? NaN, inverseMetric: this.metricKind === "dense" ? this.metricRows : (this.metricRows[0] ?? []) };
    }
    const t = this.timing;
    const hasTiming = t.warmup !== undefined || t.sampling !== undefined || t.total !== undefined;
    return {
      config: this.config,
      columns,
      rows: this.rows,
      warmupRows: countWarmup(this.rows, this.rowsBeforeAdaptation, this.config),
      ...(adaptation !== undefined ? { adaptation } : {}),
      ...(hasTiming ? { timing: { warmup: t.warmup ?? NaN, sampling: t.sampling ?? NaN, total: t.total ?? (t.warmup ?? NaN) + (t.sampling ?? NaN) } } : {}),
      truncated,
    };
  }

  private flushPending(): void {
    const p = this.pending;
    if (p === undefined) return;
    this.pending = undefined;
    const columns = this.columns!;
    if (this.reuseRow && this.shared === undefined) this.shared = new Float64Array(columns.length);
    this.row(parseStanCsvRow(p.text, columns, p.lineNo, this.shared), p.lineNo);
    this.rows++;
  }

  private comment(body: string): void {
    const t = body.trim();
    if (this.columns === undefined) {
      readConfigLine(body, this.stack, this.config);
      return;
    }
    if (this.collectingMetric) {
      const values = parseNumberList(t);
      if (values !== undefined) {
        this.metricRows.push(values);
        // A diagonal metric is one line; a dense one continues while lines are numbers.
        if (this.metricKind === "diag") this.collectingMetric = false;
        return;
      }
      this.collectingMetric = false;
    }
    if (/^Adaptation terminated/i.test(t)) {
      // The row before this line was handed on when the line came: rows counts it.
      this.rowsBeforeAdaptation = this.rows;
    } else if (/^Step size\s*=/i.test(t)) {
      this.stepsize = parseNumber(t.slice(t.indexOf("=") + 1));
    } else if (/^Diagonal elements of inverse mass matrix:?$/i.test(t)) {
      this.metricKind = "diag";
      this.collectingMetric = true;
    } else if (/^Elements of inverse mass matrix:?$/i.test(t)) {
      this.metricKind = "dense";
      this.collectingMetric = true;
    } else {
      const m = TIMING.exec(t);
      if (m === null) return;
      const value = parseNumber(m[1]!);
      const phase = m[2]!.toLowerCase();
      if (phase === "warm-up") this.timing.warmup = value;
      else if (phase === "sampling") this.timing.sampling = value;
      else this.timing.total = value;
    }
  }
}

/** One row of draws parsed to numbers (into `out` when given); a field that is not a number, or a wrong count of fields, is an error naming the line. */
export function parseStanCsvRow(line: string, columns: readonly string[], lineNo: number, out?: Float64Array): Float64Array {
  const fields = line.split(",");
  if (fields.length !== columns.length) {
    throw new Error(`Stan CSV line ${lineNo}: expected ${columns.length} numeric fields, got ${fields.length}: "${line.slice(0, 80)}"`);
  }
  const values = out ?? new Float64Array(fields.length);
  for (let k = 0; k < fields.length; k++) {
    const field = fields[k]!;
    // A plain decimal (what rows of draws hold, as a rule) is read at once: over these characters
    // Number accepts exactly the decimals that parseNumber's pattern does, and rejects the rest
    // as NaN, which then take parseNumber's way (nan and inf spellings, blanks, errors). Reading
    // every field through the pattern twice was a fifth of `ppl summary`'s time.
    let value = isPlainDecimal(field) ? Number(field) : NaN;
    if (Number.isNaN(value)) {
      if (!isNumberText(field)) {
        throw new Error(`Stan CSV line ${lineNo}: field ${k + 1} (column '${columns[k]}') is ${JSON.stringify(field.slice(0, 40))}, not a number`);
      }
      value = parseNumber(field);
    }
    values[k] = value;
  }
  return values;
}

function parseNumberList(text: string): number[] | undefined {
  const parts = text.split(",").map((s) => s.trim());
  if (parts.length === 0 || parts.some((p) => p === "")) return undefined;
  if (!parts.every(isNumberText)) return undefined;
  return parts.map(parseNumber);
}

/** Reads CmdStan-style `# key = value` settings, tracking sections by indentation. */
function readConfigLine(body: string, stack: Array<{ indent: number; key: string }>, config: Record<string, string>): void {
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

// The header's column names: each named, none twice (draws are looked up by name).
function headerColumns(text: string, lineNo: number): string[] {
  const columns = text.split(",").map((s) => s.trim());
  const empty = columns.indexOf("");
  if (empty >= 0) throw new Error(`line ${lineNo}: the header's column ${empty + 1} has no name`);
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c)) throw new Error(`line ${lineNo}: the header names column '${c}' twice`);
    seen.add(c);
  }
  return columns;
}

/**
 * Reads a draws file (`ppl sample --output-format single`: one Stan CSV file whose rows carry
 * their chain in the `chain__` column) as one StanCsv per chain, so that every command reading a
 * run (summary, report, export, generate, loo, merge) takes it as it takes chain-N.csv files.
 * The file is read in chunks, never as one string: a run of thousands of chains can pass the
 * longest string JavaScript holds.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { parseNumber, readStanCsv, type ReadAdaptation, type StanCsv } from "@ppl/ppl";
import { CHAIN_COLUMN } from "./draws-file.ts";

const CHUNK_BYTES = 1 << 23;

// One chain's rows, column by column, in arrays that grow by doubling.
class ChainColumns {
  rows = 0;
  private columns: Float64Array[];
  constructor(width: number) {
    this.columns = Array.from({ length: width }, () => new Float64Array(64));
  }
  push(values: Float64Array): void {
    if (this.rows === this.columns[0]!.length) {
      this.columns = this.columns.map((c) => {
        const grown = new Float64Array(c.length * 2);
        grown.set(c);
        return grown;
      });
    }
    for (let k = 0; k < values.length; k++) this.columns[k]![this.rows] = values[k]!;
    this.rows++;
  }
  take(): Float64Array[] {
    return this.columns.map((c) => c.slice(0, this.rows));
  }
}

/**
 * Calls `line` for every line of the file at `path` (read in chunks, without line ends) until it
 * returns "stop". A last line without its newline (a write cut short) comes with a negative number.
 */
function eachLine(path: string, line: (text: string, lineNo: number) => void | "stop"): void {
  const fd = openSync(path, "r");
  const buffer = Buffer.alloc(CHUNK_BYTES);
  const decoder = new TextDecoder();
  const strip = (t: string): string => (t.endsWith("\r") ? t.slice(0, -1) : t);
  let rest = "";
  let lineNo = 0;
  try {
    for (;;) {
      const n = readSync(fd, buffer, 0, CHUNK_BYTES, null);
      if (n === 0) break;
      const parts = (rest + decoder.decode(buffer.subarray(0, n), { stream: true })).split("\n");
      rest = parts.pop()!;
      for (const p of parts) if (line(strip(p), ++lineNo) === "stop") return;
    }
    rest += decoder.decode();
    if (rest !== "") line(strip(rest), -(lineNo + 1));
  } finally {
    closeSync(fd);
  }
}

function parseRow(text: string, width: number, columns: readonly string[], lineNo: number): Float64Array {
  const fields = text.split(",");
  if (fields.length !== width) throw new Error(`Stan CSV line ${lineNo}: expected ${width} numeric fields, got ${fields.length}: "${text.slice(0, 80)}"`);
  const out = new Float64Array(width);
  for (let k = 0; k < width; k++) {
    const f = fields[k]!;
    let v = Number(f);
    if (Number.isNaN(v) || f.trim() === "") {
      try {
        v = parseNumber(f);
      } catch {
        throw new Error(`Stan CSV line ${lineNo}: field ${k + 1} (column '${columns[k]}') is ${JSON.stringify(f.slice(0, 40))}, not a number`);
      }
    }
    out[k] = v;
  }
  return out;
}

const CHAIN_ADAPTATION = /^#\s*chain (\d+): Step size = (\S+), inverse metric \((diag|dense)\) = (.*)$/;

/** True when a Stan CSV file's column line (its first line not a comment) leads with chain__. */
export function isDrawsFile(path: string): boolean {
  let found = false;
  eachLine(path, (text) => {
    if (text.startsWith("#") || text.trim() === "") return;
    found = text.startsWith(`${CHAIN_COLUMN},`);
    return "stop";
  });
  return found;
}

/** The chains of a draws file, one StanCsv each (header `id` = the chain's), in order of chain id. */
export function readDrawsFile(path: string): StanCsv[] {
  const meta: string[] = [];
  let columns: string[] | undefined;
  const chains = new Map<number, ChainColumns>();
  const adaptations = new Map<number, ReadAdaptation>();
  let truncated = false;
  eachLine(path, (text, lineNo) => {
    if (text.trim() === "") return;
    if (text.startsWith("#")) {
      const m = CHAIN_ADAPTATION.exec(text);
      if (m !== null) adaptations.set(Number(m[1]), adaptationOf(m));
      else meta.push(text);
      return;
    }
    if (columns === undefined) {
      columns = text.split(",").map((s) => s.trim());
      meta.push(text);
      return;
    }
    if (lineNo < 0) {
      truncated = true;
      return;
    }
    const row = parseRow(text, columns.length, columns, lineNo);
    const id = row[0]!;
    let chain = chains.get(id);
    if (chain === undefined) chains.set(id, (chain = new ChainColumns(columns.length - 1)));
    chain.push(row.subarray(1));
  });
  if (columns === undefined || columns[0] !== CHAIN_COLUMN) throw new Error(`no '${CHAIN_COLUMN}' column leads the column line, so not a draws file`);
  const head = readStanCsv(meta.join("\n") + "\n");
  const names = columns.slice(1);
  return [...chains.entries()].sort((a, b) => a[0] - b[0]).map(([id, c]) => {
    const adaptation = adaptations.get(id) ?? head.adaptation;
    return {
      config: { ...head.config, id: String(id) },
      columns: names,
      draws: c.take(),
      warmupDraws: names.map(() => new Float64Array(0)),
      ...(adaptation !== undefined ? { adaptation } : {}),
      ...(head.timing !== undefined ? { timing: head.timing } : {}),
      truncated,
    };
  });
}

function adaptationOf(m: RegExpExecArray): ReadAdaptation {
  const values = m[4]!.split(",").map((s) => parseNumber(s.trim()));
  const n = Math.round(Math.sqrt(values.length));
  return {
    stepsize: parseNumber(m[2]!),
    inverseMetric: m[3] === "dense" ? Array.from({ length: n }, (_, r) => values.slice(r * n, (r + 1) * n)) : values,
  };
}

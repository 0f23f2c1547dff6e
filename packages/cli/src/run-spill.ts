/**
 * Stan CSV files read into one columnar spill (column-spill.ts), a line at a time: the commands
 * that read a run (`ppl summary`, `report`, `export`, `loo`, `merge`, `generate`) then take a
 * parameter's draws from the spill when they need them, as `ppl sample`'s summary does, instead of
 * holding every file's text and every column at once. A chain file of 5,000,000 draws of eight
 * schools is 2.1 GB of text; its spill is 8 bytes a value, on disk. The spill goes into the
 * system's temporary directory (TMPDIR) and is unlinked as soon as it is open, so that nothing is
 * left behind whatever ends the process; `release` closes it.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { StanCsvParser, type ChainDraws, type ReadAdaptation, type ReadTiming, type StanCsvHead } from "@ppl/ppl";
import { ColumnSpill, defaultBlockRows } from "./column-spill.ts";
import { CHAIN_COLUMN } from "./draws-file.ts";
import { eachLine } from "./line-reader.ts";
import { chainAdaptation } from "./read-draws-file.ts";
import { readStretch, spillStretchDraws, type SpillStretch } from "./spill-draws.ts";

/** One chain of a run as its file says it, without its draws (which are in the spill). */
export interface ChainFile {
  /** Header settings (as StanCsv's). */
  readonly config: Record<string, string>;
  /** Column names as written in the file (Stan's dotted form). */
  readonly columns: string[];
  readonly adaptation?: ReadAdaptation;
  readonly timing?: ReadTiming;
  /** True when the last row lacked its newline (an interrupted write) and was skipped. */
  readonly truncated: boolean;
  /** Sampling draws the chain has. */
  readonly drawCount: number;
  /** Warmup draws the chain has (saved with --save-warmup). */
  readonly warmupCount: number;
}

/** A chain read into the spill: its file's header, and where its draws lie. */
export interface SpilledChain {
  readonly file: ChainFile;
  /** The spill's chain, or -1 where the file's columns differ from the first file's (its rows are not kept). */
  readonly chain: number;
  /** The row of the spill's chain where the sampling draws start (after the warmup draws, and variational.csv's mean). */
  readonly first: number;
}

let spills = 0;

/** The rows of Stan CSV files (one chain each, or draws files of many), kept in one spill of the first file's width. */
export class RunSpill {
  private spill: ColumnSpill | undefined;
  private names: string[] | undefined;

  /** `expectedChains`: how many chains the files hold together (sizes the spill's block buffers); `blockRows`: rows a block holds, in place of the size that follows from it. */
  constructor(private readonly expectedChains: number, private readonly blockRows?: number) {}

  /** Reads a Stan CSV file of one chain; `skipRows`: sampling rows that are not draws (variational.csv's mean), decided from the header. */
  readChainFile(path: string, skipRows: (config: Readonly<Record<string, string>>) => number): SpilledChain {
    let chain = -2;
    const parser = new StanCsvParser((values) => {
      if (chain === -2) chain = this.chainFor(parser.columnNames!);
      if (chain >= 0) this.spill!.push(chain, values);
    }, true);
    const head = readLines(path, parser);
    if (chain === -2) chain = this.chainFor(head.columns);
    const skip = Math.min(skipRows(head.config), head.rows - head.warmupRows);
    const file = fileOf(head, head.rows - head.warmupRows - skip, head.warmupRows);
    return { file, chain, first: head.warmupRows + skip };
  }

  /** Reads a draws file (rows led by chain__): one chain per chain id, in order of id. */
  readDrawsFile(path: string): SpilledChain[] {
    const chains = new Map<number, { chain: number; rows: number }>();
    const adaptations = new Map<number, ReadAdaptation>();
    const parser = new StanCsvParser((values) => {
      const id = values[0]!;
      let c = chains.get(id);
      if (c === undefined) chains.set(id, (c = { chain: this.chainFor(parser.columnNames!.slice(1)), rows: 0 }));
      if (c.chain >= 0) this.spill!.push(c.chain, values.subarray(1));
      c.rows++;
    }, true);
    const head = readLines(path, parser, (text) => {
      const a = chainAdaptation(text);
      if (a !== undefined) adaptations.set(a.id, a.adaptation);
      return a !== undefined;
    });
    if (head.columns[0] !== CHAIN_COLUMN) throw new Error(`no '${CHAIN_COLUMN}' column leads the column line, so not a draws file`);
    const names = head.columns.slice(1);
    return [...chains.entries()].sort((a, b) => a[0] - b[0]).map(([id, c]) => {
      const adaptation = adaptations.get(id) ?? head.adaptation;
      const file = fileOf({ ...head, config: { ...head.config, id: String(id) }, columns: names, ...(adaptation !== undefined ? { adaptation } : {}) }, c.rows, 0);
      return { file, chain: c.chain, first: 0 };
    });
  }

  /** The sampling draws of `chains` (one per chain of the run, each with the first file's columns), cut to the shortest, read from the spill when asked for. */
  draws(chains: readonly SpilledChain[]): ChainDraws {
    return this.drawsOf(chains.map((c) => ({ chain: c.chain, first: c.first, rows: c.file.drawCount })));
  }

  /** The saved warmup draws of `chains`, as `draws` gives the sampling draws. */
  warmupDraws(chains: readonly SpilledChain[]): ChainDraws {
    return this.drawsOf(chains.map((c) => ({ chain: c.chain, first: 0, rows: c.file.warmupCount })));
  }

  /** Every sampling draw of one chain, a column each (for checks and for commands that take a chain at a time). */
  chainColumns(c: SpilledChain): Float64Array[] {
    if (c.chain < 0) throw new Error("the chain's columns differ from the run's, so its draws were not kept");
    return c.file.columns.map((_, k) => readStretch(this.spill!, { chain: c.chain, first: c.first, rows: c.file.drawCount }, k, c.file.drawCount));
  }

  /**
   * Forgets a chain read but not taken (a stray CSV file beside CmdStan's): where it was the only
   * chain, the spill is closed, so that the next file's columns set the run's width.
   */
  forget(c: SpilledChain): void {
    if (c.chain !== 0 || this.spill === undefined || this.spill.chains !== 1) return;
    this.spill.remove();
    this.spill = undefined;
    this.names = undefined;
  }

  /** Closes the spill (again: nothing). */
  release(): void {
    this.spill?.remove();
  }

  private drawsOf(stretches: SpillStretch[]): ChainDraws {
    if (this.spill === undefined || this.names === undefined) throw new Error("no Stan CSV file was read into the spill");
    return spillStretchDraws(this.spill, this.names, stretches);
  }

  // A new chain of the spill for a file whose columns are `names`, or -1 when they are not the first file's.
  private chainFor(names: readonly string[]): number {
    if (this.names === undefined) {
      this.names = [...names];
      const path = join(tmpdir(), `ppl-run-${process.pid}-${++spills}.spill`);
      // Sized for the chains expected (a draws file's are many), so that the block buffers stay about 32 MiB.
      this.spill = new ColumnSpill(path, 0, names.length, this.blockRows ?? defaultBlockRows(Math.max(this.expectedChains, 1), names.length));
      // Unlinked at once: the open descriptor keeps it readable, and no exit leaves it behind.
      rmSync(path, { force: true });
    } else if (names.length !== this.names.length || names.some((n, k) => n !== this.names![k])) {
      return -1;
    }
    return this.spill!.addChain();
  }
}

// The file's lines through the parser; `aside` takes a line out of the parser's way (true when it did).
function readLines(path: string, parser: StanCsvParser, aside?: (text: string) => boolean): StanCsvHead {
  let newline = true;
  eachLine(path, (text, lineNo) => {
    if (lineNo < 0) newline = false;
    if (aside?.(text) === true) return;
    parser.line(text, Math.abs(lineNo));
  });
  return parser.end(newline);
}

function fileOf(head: StanCsvHead, drawCount: number, warmupCount: number): ChainFile {
  const { rows: _rows, warmupRows: _warmup, ...rest } = head;
  return { ...rest, drawCount, warmupCount };
}

/**
 * Rows of float64 values per chain, spilled to one binary file in blocks and read back one column
 * at a time. A run's summary needs each parameter's draws over all chains, but keeping every row
 * in memory grows with the run (4 × 5,000,000 draws of a model with a few columns are gigabytes);
 * here a chain's rows are buffered a block at a time, each full block is written transposed
 * (column after column), and a column is read back with one read per block. The values are the
 * draws' exact bits, so a summary from the spill equals one from draws kept in memory.
 */
import { closeSync, openSync, readSync, rmSync, writeSync } from "node:fs";

/** Values held in memory over all chains' block buffers (32 MiB of float64). */
const BUFFERED_VALUES = 1 << 22;
/** Rows a block holds at most, and at least. */
const MAX_BLOCK_ROWS = 1 << 16;
const MIN_BLOCK_ROWS = 16;

// Where one written block of a chain lies in the file.
interface Block {
  readonly offset: number;
  readonly rows: number;
}

/** Fixed-width rows appended per chain to a spill file, read back per column. */
export class ColumnSpill {
  private readonly fd: number;
  private readonly blockRows: number;
  private readonly buffers: Float64Array[];
  private readonly filled: number[];
  private readonly blocks: Block[][];
  private end = 0;
  private removed = false;

  /** Creates (or truncates) the spill file at `path` for `chains` chains of rows `width` values wide, written `blockRows` rows at a time. */
  constructor(readonly path: string, chains: number, readonly width: number, blockRows = defaultBlockRows(chains, width)) {
    this.blockRows = Math.max(1, Math.floor(blockRows));
    this.fd = openSync(path, "w+");
    this.buffers = Array.from({ length: chains }, () => new Float64Array(this.blockRows * width));
    this.filled = new Array<number>(chains).fill(0);
    this.blocks = Array.from({ length: chains }, () => []);
  }

  /** Appends one row (its first `width` values) to a chain. */
  push(chain: number, row: ArrayLike<number>): void {
    const n = this.filled[chain]!;
    let buf = this.buffers[chain]!;
    // A chain sealed (its buffer given back) takes rows again in a new block.
    if (buf.length === 0) this.buffers[chain] = buf = new Float64Array(this.blockRows * this.width);
    // Stored column-major within the block, so that a block is written as it is, column after column.
    for (let k = 0; k < this.width; k++) buf[k * this.blockRows + n] = row[k]!;
    this.filled[chain] = n + 1;
    if (n + 1 === this.blockRows) this.flush(chain);
  }

  /** Adds a chain (its rows empty) after those the spill was made with; returns its index. */
  addChain(): number {
    this.buffers.push(new Float64Array(this.blockRows * this.width));
    this.filled.push(0);
    this.blocks.push([]);
    return this.buffers.length - 1;
  }

  /** Chains the spill holds. */
  get chains(): number {
    return this.buffers.length;
  }

  /** Rows appended to each chain so far. */
  rows(chain: number): number {
    return this.blocks[chain]!.reduce((a, b) => a + b.rows, 0) + this.filled[chain]!;
  }

  /** Column `k` of every chain, each cut to `length` rows (at most the chain's own count). */
  column(k: number, length: number): Float64Array[] {
    return this.buffers.map((_, c) => this.chainColumn(c, k, length));
  }

  /** Copies rows start .. start + out.length - 1 of column `k` of a chain into `out` (one read per block they span). */
  read(chain: number, k: number, start: number, out: Float64Array): void {
    const end = start + out.length;
    let first = 0; // the first row of the block at hand
    for (const b of this.blocks[chain]!) {
      const from = Math.max(start, first);
      const to = Math.min(end, first + b.rows);
      if (from < to) readExactly(this.fd, new Uint8Array(out.buffer, out.byteOffset + (from - start) * 8, (to - from) * 8), b.offset + (k * b.rows + from - first) * 8);
      first += b.rows;
      if (first >= end) return;
    }
    // The rows not yet written: the block being filled.
    const buf = this.buffers[chain]!;
    for (let r = Math.max(start, first); r < end; r++) {
      if (r - first >= this.filled[chain]!) throw new RangeError(`the spill holds ${first + this.filled[chain]!} rows of chain ${chain + 1}, not ${end}`);
      out[r - start] = buf[k * this.blockRows + r - first]!;
    }
  }

  /**
   * Writes each chain's rows still in its buffer as a last, shorter block and gives the buffers
   * back (about 32 MiB over all chains, which the summary that reads the spill next would hold
   * beside its own arrays). A chain whose block cannot be written (a full disk) keeps its buffer,
   * and its reads take those rows from there as before.
   */
  seal(): void {
    if (this.removed) return;
    for (let c = 0; c < this.buffers.length; c++) {
      if (this.filled[c]! > 0) {
        try {
          this.flush(c);
        } catch {
          continue;
        }
      }
      this.buffers[c] = new Float64Array(0);
    }
  }

  /** Closes and deletes the spill file (again: nothing). */
  remove(): void {
    if (this.removed) return;
    this.removed = true;
    closeSync(this.fd);
    rmSync(this.path, { force: true });
  }

  private chainColumn(c: number, k: number, length: number): Float64Array {
    const out = new Float64Array(length);
    let at = 0;
    for (const b of this.blocks[c]!) {
      if (at >= length) break;
      const take = Math.min(b.rows, length - at);
      readExactly(this.fd, new Uint8Array(out.buffer, at * 8, take * 8), b.offset + k * b.rows * 8);
      at += take;
    }
    // The rows not yet written: the block being filled.
    const buf = this.buffers[c]!;
    for (let i = 0; at < length && i < this.filled[c]!; i++) out[at++] = buf[k * this.blockRows + i]!;
    return out;
  }

  private flush(c: number): void {
    const rows = this.filled[c]!;
    const buf = this.buffers[c]!;
    const bytes = rows * this.width * 8;
    // A full block is the buffer as it is; a part block's columns are packed first.
    const packed = rows === this.blockRows ? buf : Float64Array.from({ length: rows * this.width }, (_, j) => buf[Math.floor(j / rows) * this.blockRows + (j % rows)]!);
    const view = new Uint8Array(packed.buffer, packed.byteOffset, bytes);
    for (let done = 0; done < bytes; ) done += writeSync(this.fd, view, done, bytes - done, this.end + done);
    this.blocks[c]!.push({ offset: this.end, rows });
    this.end += bytes;
    this.filled[c] = 0;
  }
}

/** Rows per block: the buffers of all chains together hold about BUFFERED_VALUES values. */
export function defaultBlockRows(chains: number, width: number): number {
  return Math.max(MIN_BLOCK_ROWS, Math.min(MAX_BLOCK_ROWS, Math.floor(BUFFERED_VALUES / Math.max(1, chains * width))));
}

function readExactly(fd: number, into: Uint8Array, position: number): void {
  for (let done = 0; done < into.length; ) {
    const n = readSync(fd, into, done, into.length - done, position + done);
    if (n === 0) throw new Error(`the spill file ended ${into.length - done} bytes early`);
    done += n;
  }
}

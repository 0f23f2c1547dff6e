import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readStanCsv, SAMPLER_COLUMNS, samplerValues, writeStanCsv, type ChainDraws, type TextSink, type ChainAdaptationResult, type ConfigNode, type DrawInfo, type StanCsvWriter } from "@ppl/ppl";
import { ColumnSpill } from "./column-spill.ts";
import { FilePool } from "./file-pool.ts";
import { spillDraws } from "./spill-draws.ts";

/**
 * One Stan CSV file per chain (DIR/chain-1.csv …), each draw written the moment it is made, and
 * spilled with its exact bits to a columnar file beside them (see column-spill.ts), so that the
 * run's summary reads one column at a time and no draw is kept in memory.
 */
export class ChainFiles {
  /** Paths of the files, chain 1 first. */
  readonly paths: string[];
  private readonly writers: StanCsvWriter[];
  private readonly row: Float64Array;
  // Per chain, the rows written so far (sampler values, then the reported values).
  private readonly kept: ColumnSpill;

  /**
   * `samplerColumns` lead each row: NUTS's by default, others for draws that no sampler made (`ppl sample --prior`, `ppl generate`).
   * `firstChain` numbers the files of a chain group (`--first-chain K`: chain-(K+1).csv …).
   */
  constructor(
    dir: string, chains: number, parameters: readonly string[], configFor: (chain: number) => ConfigNode[], samplerColumns: readonly string[] = SAMPLER_COLUMNS, firstChain = 0,
    opts: { readonly resume?: boolean } = {},
  ) {
    this.paths = Array.from({ length: chains }, (_, c) => join(dir, `chain-${firstChain + c + 1}.csv`));
    this.writers = [];
    // Through a pool of open files: one descriptor per chain would exceed the limit on open files.
    const pool = new FilePool();
    try {
      for (let c = 0; c < chains; c++) {
        // A resumed run appends to the files as its checkpoint left them: their header is there already.
        const sink = opts.resume ? withoutHeader(pool.sink(this.paths[c]!, true)) : pool.sink(this.paths[c]!);
        this.writers.push(writeStanCsv(sink, { config: configFor(c), parameters, samplerColumns }));
      }
    } catch (e) {
      // A header the disk refused: the files already opened close; there is no spill yet to seal.
      this.closeWriters();
      throw e;
    }
    this.row = new Float64Array(samplerColumns.length + parameters.length);
    this.kept = new ColumnSpill(join(dir, `.draws-${firstChain + 1}.spill`), chains, this.row.length);
    // The sampling draws already in the files go into the spill first, so that the summary covers the whole run.
    if (opts.resume) this.paths.forEach((path, c) => this.keepWritten(path, c));
    // A run that ends by an error or a signal leaves no spill behind (only a SIGKILL does).
    const release = (): void => this.kept.remove();
    process.once("exit", release);
    this.unhook = () => process.removeListener("exit", release);
  }

  private readonly unhook: () => void;

  // The sampling draws of a file written before (a resumed run's), in the spill.
  private keepWritten(path: string, chain: number): void {
    const csv = readStanCsv(readFileSync(path, "utf8"));
    if (csv.columns.length !== this.row.length) throw new Error(`${path} has ${csv.columns.length} columns, the run ${this.row.length}`);
    const rows = csv.draws[0]?.length ?? 0;
    for (let r = 0; r < rows; r++) {
      for (let k = 0; k < this.row.length; k++) this.row[k] = csv.draws[k]![r]!;
      this.kept.push(chain, this.row);
    }
  }

  /** Writes each chain's adapted step size and inverse metric, between warmup and sampling (adaptation[i] is row first + i's). */
  writeAdaptation(adaptation: readonly ChainAdaptationResult[], first = 0): void {
    adaptation.forEach((a, i) => {
      const c = first + i;
      const m = Array.from(a.invMetric);
      const n = Math.round(Math.sqrt(m.length));
      const inverseMetric = a.metric === "dense" ? Array.from({ length: n }, (_, i) => m.slice(i * n, (i + 1) * n)) : m;
      this.writers[c]!.writeAdaptation({ stepsize: a.stepSize, inverseMetric });
    });
  }

  /** Writes the same comment line into every chain's file, where its draws stand now. */
  writeComment(text: string): void {
    for (const w of this.writers) w.writeComment(text);
  }

  /** Writes a comment line into one chain's file (row of the run), where its draws stand now. */
  writeChainComment(chain: number, text: string): void {
    this.writers[chain]!.writeComment(text);
  }

  /** Appends one sampling draw: Stan's sampler columns, then the reported (constrained) values. */
  writeDraw(d: DrawInfo, generated: ArrayLike<number>): void {
    const r = this.row;
    samplerValues(d, r);
    r.set(generated, SAMPLER_COLUMNS.length);
    this.writers[d.chain]!.writeDraw(r);
    this.kept.push(d.chain, r);
  }

  /** Appends one warmup draw (--save-warmup): written to the file, not kept, so that the run's summary covers the sampling draws only. */
  writeWarmupDraw(d: DrawInfo, generated: ArrayLike<number>): void {
    const r = this.row;
    samplerValues(d, r);
    r.set(generated, SAMPLER_COLUMNS.length);
    this.writers[d.chain]!.writeDraw(r);
  }

  /** Appends one whole row (the leading columns' values first) to a chain's file. */
  writeRow(chain: number, row: ArrayLike<number>): void {
    if (row.length !== this.row.length) throw new Error(`a row has ${row.length} values but the files have ${this.row.length} columns`);
    this.row.set(row);
    this.writers[chain]!.writeDraw(this.row);
    this.kept.push(chain, this.row);
  }

  /**
   * Every draw written so far, regrouped per column as `collectChains` does with the files read
   * back, read from the spill when asked for (spill-draws.ts): take one column at a time.
   */
  draws(): ChainDraws {
    return spillDraws(this.kept, this.writers[0]!.columns, this.writers.length);
  }

  /** Deletes the spill that `draws()` reads: once the summary is made (also done when the process exits). */
  release(): void {
    this.kept.remove();
    this.unhook();
  }

  /** Writes the timing footer and closes every file; a file that fails (a full disk) does not keep the others open, and the first failure is thrown. */
  close(timing?: { warmup: number; sampling: number }): void {
    this.closeWriters(timing);
    // No row comes after: the spill's block buffers go, and the summary reads it from the file.
    this.kept.seal();
  }

  // Closes every chain's file even when one fails, then throws the first failure.
  private closeWriters(timing?: { warmup: number; sampling: number }): void {
    let failure: { readonly error: unknown } | null = null;
    for (const w of this.writers) {
      try {
        w.close(timing);
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== null) throw failure.error;
  }
}

// A sink that drops its first write: the header a writer writes on creation, already in a file it appends to.
function withoutHeader(sink: TextSink): TextSink {
  let first = true;
  return {
    write: (chunk: string): void => {
      if (first) first = false;
      else sink.write(chunk);
    },
    close: () => sink.close(),
  };
}

import { join } from "node:path";
import { chainsFromColumns, SAMPLER_COLUMNS, samplerValues, writeStanCsv, type ChainDraws, type ChainAdaptationResult, type ConfigNode, type DrawInfo, type StanCsvWriter } from "@ppl/ppl";
import { FilePool } from "./file-pool.ts";

/**
 * One Stan CSV file per chain (DIR/chain-1.csv …), each draw written the moment it is made, and
 * kept in memory too, so that the run's summary needs no second reading of the files.
 */
export class ChainFiles {
  /** Paths of the files, chain 1 first. */
  readonly paths: string[];
  private readonly writers: StanCsvWriter[];
  private readonly row: Float64Array;
  // Per chain, the rows written so far (sampler values, then the reported values), back to back.
  private readonly kept: GrowingRows[];

  /**
   * `samplerColumns` lead each row: NUTS's by default, others for draws that no sampler made (`ppl sample --prior`, `ppl generate`).
   * `firstChain` numbers the files of a chain group (`--first-chain K`: chain-(K+1).csv …).
   */
  constructor(dir: string, chains: number, parameters: readonly string[], configFor: (chain: number) => ConfigNode[], samplerColumns: readonly string[] = SAMPLER_COLUMNS, firstChain = 0) {
    this.paths = Array.from({ length: chains }, (_, c) => join(dir, `chain-${firstChain + c + 1}.csv`));
    this.writers = [];
    // Through a pool of open files: one descriptor per chain would exceed the limit on open files.
    const pool = new FilePool();
    try {
      for (let c = 0; c < chains; c++) this.writers.push(writeStanCsv(pool.sink(this.paths[c]!), { config: configFor(c), parameters, samplerColumns }));
    } catch (e) {
      this.close();
      throw e;
    }
    this.row = new Float64Array(samplerColumns.length + parameters.length);
    this.kept = Array.from({ length: chains }, () => new GrowingRows(this.row.length));
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

  /** Appends one sampling draw: Stan's sampler columns, then the reported (constrained) values. */
  writeDraw(d: DrawInfo, generated: ArrayLike<number>): void {
    const r = this.row;
    samplerValues(d, r);
    r.set(generated, SAMPLER_COLUMNS.length);
    this.writers[d.chain]!.writeDraw(r);
    this.kept[d.chain]!.push(r);
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
    this.kept[chain]!.push(this.row);
  }

  /** Every draw written so far, regrouped per column as `collectChains` does with the files read back. */
  draws(): ChainDraws {
    const names = this.writers[0]!.columns;
    return chainsFromColumns(names, this.kept.map((k) => k.columns()));
  }

  /** Writes the timing footer and closes every file. */
  close(timing?: { warmup: number; sampling: number }): void {
    for (const w of this.writers) w.close(timing);
  }
}

// Rows of a fixed width appended one at a time, read back as columns.
class GrowingRows {
  private data: Float64Array;
  private rows = 0;
  constructor(private readonly width: number) {
    this.data = new Float64Array(width * 64);
  }
  push(row: Float64Array): void {
    if ((this.rows + 1) * this.width > this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data.set(row, this.rows * this.width);
    this.rows++;
  }
  columns(): Float64Array[] {
    return Array.from({ length: this.width }, (_, c) => {
      const col = new Float64Array(this.rows);
      for (let i = 0; i < this.rows; i++) col[i] = this.data[i * this.width + c]!;
      return col;
    });
  }
}

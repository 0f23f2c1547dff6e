import { join } from "node:path";
import {
  fileSink, SAMPLER_COLUMNS, samplerValues, writeStanCsv, type ChainAdaptationResult, type ChainDraws, type ConfigNode, type DrawInfo,
  type StanCsvWriter, type TextSink,
} from "@ppl/ppl";
import { ColumnSpill } from "./column-spill.ts";
import { spillDraws } from "./spill-draws.ts";

/** The file name of a run's draws written as one file (`--output-format single`). */
export const DRAWS_FILE = "draws.csv";

/** The column that says which chain (1-based global id, as chain-N.csv's N) a row of DRAWS_FILE belongs to. */
export const CHAIN_COLUMN = "chain__";

/** Characters of rows a block holds before it is handed to the file. */
const BLOCK_CHARS = 1 << 20;

/**
 * A file sink that hands text to the operating system in blocks of about 1 MiB: one write per
 * block instead of one per row, for runs of thousands of chains. A run stopped by a signal
 * flushes on close; a killed one loses at most the last block, and a row cut there is a
 * truncated last line, which the reader skips.
 */
export function blockSink(path: string): TextSink {
  const file = fileSink(path);
  let parts: string[] = [];
  let size = 0;
  const flush = (): void => {
    if (size === 0) return;
    file.write(parts.join(""));
    parts = [];
    size = 0;
  };
  return {
    write(chunk: string): void {
      parts.push(chunk);
      size += chunk.length;
      if (size >= BLOCK_CHARS) flush();
    },
    close(): void {
      flush();
      file.close();
    },
  };
}

/**
 * Every chain's draws in one Stan CSV file, DIR/draws.csv, each row led by its chain's id in the
 * `chain__` column and written as it is made (in blocks): a run of 4,096 chains opens one file,
 * not 4,096. The header is the first chain's; each chain's adaptation is a comment line
 * (`# chain N: Step size = …, inverse metric = …`), the first chain's also as Stan's block. As
 * ChainFiles, the draws are spilled to a columnar file so that the summary reads one column at a time.
 */
export class DrawsFile {
  /** The one path written. */
  readonly paths: string[];
  private readonly writer: StanCsvWriter;
  private readonly row: Float64Array;
  private readonly kept: ColumnSpill;
  private readonly names: readonly string[];
  private readonly unhook: () => void;
  private adapted = false;

  /** `config` is the header's settings; `firstChain` the global index of this run's first chain (--first-chain). */
  constructor(dir: string, private readonly chains: number, parameters: readonly string[], config: ConfigNode[], private readonly firstChain = 0) {
    this.paths = [join(dir, DRAWS_FILE)];
    this.writer = writeStanCsv(blockSink(this.paths[0]!), { config, parameters, samplerColumns: [CHAIN_COLUMN, ...SAMPLER_COLUMNS] });
    this.names = this.writer.columns.slice(1);
    this.row = new Float64Array(this.writer.columns.length);
    this.kept = new ColumnSpill(join(dir, `.draws-${firstChain + 1}.spill`), chains, this.names.length);
    const release = (): void => this.kept.remove();
    process.once("exit", release);
    this.unhook = () => process.removeListener("exit", release);
  }

  /** Writes each chain's adapted step size and inverse metric as a comment (adaptation[i] is chain first + i's). */
  writeAdaptation(adaptation: readonly ChainAdaptationResult[], first = 0): void {
    adaptation.forEach((a, i) => {
      const metric = Array.from(a.invMetric);
      // The first chain to finish its warmup gives Stan's block, before any sampling row: readers take it as the run's.
      if (!this.adapted) {
        const n = Math.round(Math.sqrt(metric.length));
        this.writer.writeAdaptation({ stepsize: a.stepSize, inverseMetric: a.metric === "dense" ? Array.from({ length: n }, (_, r) => metric.slice(r * n, (r + 1) * n)) : metric });
        this.adapted = true;
      }
      this.writer.writeComment(`chain ${this.firstChain + first + i + 1}: Step size = ${a.stepSize}, inverse metric (${a.metric}) = ${metric.join(", ")}`);
    });
  }

  /** Writes a comment line where the draws stand now. */
  writeComment(text: string): void {
    this.writer.writeComment(text);
  }

  /** Writes a comment line about one chain (row of the run), naming it, where the draws stand now. */
  writeChainComment(chain: number, text: string): void {
    this.writer.writeComment(`chain ${this.firstChain + chain + 1}: ${text}`);
  }

  /** Appends one sampling draw of chain d.chain. */
  writeDraw(d: DrawInfo, generated: ArrayLike<number>): void {
    this.fill(d, generated);
    this.writer.writeDraw(this.row);
    this.kept.push(d.chain, this.row.subarray(1));
  }

  /** --save-warmup with one file: refused by `ppl sample` (a chain's warmup rows would follow another chain's adaptation block). */
  writeWarmupDraw(_d: DrawInfo, _generated: ArrayLike<number>): never {
    throw new Error("warmup draws are not written to draws.csv");
  }

  /** Every draw written so far, per column, read from the spill when asked for (as ChainFiles.draws). */
  draws(): ChainDraws {
    return spillDraws(this.kept, this.names, this.chains);
  }

  /** Deletes the spill (once the summary is made). */
  release(): void {
    this.kept.remove();
    this.unhook();
  }

  /** Writes the timing footer and closes the file. */
  close(timing?: { warmup: number; sampling: number }): void {
    this.writer.close(timing);
    // No row comes after: the spill's block buffers go, and the summary reads it from the file.
    this.kept.seal();
  }

  private fill(d: DrawInfo, generated: ArrayLike<number>): void {
    const r = this.row;
    r[0] = this.firstChain + d.chain + 1;
    const sampler = r.subarray(1);
    samplerValues(d, sampler);
    sampler.set(generated, SAMPLER_COLUMNS.length);
  }
}

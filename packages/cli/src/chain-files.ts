import { join } from "node:path";
import { fileSink, writeStanCsv, type ChainAdaptationResult, type ConfigNode, type DrawInfo, type StanCsvWriter } from "@ppl/ppl";

/** One Stan CSV file per chain (DIR/chain-1.csv …), each draw written the moment it is made. */
export class ChainFiles {
  /** Paths of the files, chain 1 first. */
  readonly paths: string[];
  private readonly writers: StanCsvWriter[];
  private readonly row: Float64Array;

  constructor(dir: string, chains: number, parameters: readonly string[], configFor: (chain: number) => ConfigNode[]) {
    this.paths = Array.from({ length: chains }, (_, c) => join(dir, `chain-${c + 1}.csv`));
    this.writers = [];
    try {
      for (let c = 0; c < chains; c++) this.writers.push(writeStanCsv(fileSink(this.paths[c]!), { config: configFor(c), parameters }));
    } catch (e) {
      this.close();
      throw e;
    }
    this.row = new Float64Array(7 + parameters.length);
  }

  /** Writes each chain's adapted step size and inverse metric, between warmup and sampling. */
  writeAdaptation(adaptation: readonly ChainAdaptationResult[]): void {
    adaptation.forEach((a, c) => {
      const m = Array.from(a.invMetric);
      const n = Math.round(Math.sqrt(m.length));
      const inverseMetric = a.metric === "dense" ? Array.from({ length: n }, (_, i) => m.slice(i * n, (i + 1) * n)) : m;
      this.writers[c]!.writeAdaptation({ stepsize: a.stepSize, inverseMetric });
    });
  }

  /** Appends one sampling draw: Stan's sampler columns, then the reported (constrained) values. */
  writeDraw(d: DrawInfo, generated: ArrayLike<number>): void {
    const r = this.row;
    r[0] = d.lp;
    r[1] = d.acceptStat;
    r[2] = d.stepSize;
    r[3] = d.treeDepth;
    r[4] = d.nLeapfrog;
    r[5] = d.divergent ? 1 : 0;
    r[6] = d.energy;
    r.set(generated, 7);
    this.writers[d.chain]!.writeDraw(r);
  }

  /** Writes the timing footer and closes every file. */
  close(timing?: { warmup: number; sampling: number }): void {
    for (const w of this.writers) w.close(timing);
  }
}

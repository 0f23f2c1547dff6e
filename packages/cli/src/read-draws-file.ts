/**
 * What tells a draws file (`ppl sample --output-format single`: one Stan CSV file whose rows
 * carry their chain in the `chain__` column) from a chain's file, and its per-chain adaptation
 * lines; run-spill.ts reads its rows into one chain each, so that every command reading a run
 * (summary, report, export, generate, loo, merge) takes it as it takes chain-N.csv files.
 */
import { parseNumber, type ReadAdaptation } from "@ppl/ppl";
import { CHAIN_COLUMN } from "./draws-file.ts";
import { eachLine } from "./line-reader.ts";

const CHAIN_ADAPTATION = /^#\s*chain (\d+): Step size = (\S+), inverse metric \((diag|dense)\) = (.*)$/;

/** What a Stan CSV file's header says before its rows: whether it is a draws file, and its num_chains setting (NaN when absent). */
export interface FileKind {
  readonly drawsFile: boolean;
  readonly numChains: number;
}

/** Reads a Stan CSV file up to its column line: a draws file's leads with chain__. */
export function fileKind(path: string): FileKind {
  let drawsFile = false;
  let numChains = NaN;
  eachLine(path, (text) => {
    if (text.trim() === "") return;
    if (text.startsWith("#")) {
      const m = /^#\s*num_chains\s*=\s*(\d+)/.exec(text);
      if (m !== null && Number.isNaN(numChains)) numChains = Number(m[1]);
      return;
    }
    drawsFile = text.startsWith(`${CHAIN_COLUMN},`);
    return "stop";
  });
  return { drawsFile, numChains };
}

/** True when a Stan CSV file's column line (its first line not a comment) leads with chain__. */
export function isDrawsFile(path: string): boolean {
  return fileKind(path).drawsFile;
}

/** A draws file's line `# chain N: Step size = …, inverse metric (diag) = …` as the chain id and its adaptation; undefined for any other line. */
export function chainAdaptation(line: string): { readonly id: number; readonly adaptation: ReadAdaptation } | undefined {
  const m = CHAIN_ADAPTATION.exec(line);
  if (m === null) return undefined;
  const values = m[4]!.split(",").map((s) => parseNumber(s.trim()));
  const n = Math.round(Math.sqrt(values.length));
  return {
    id: Number(m[1]),
    adaptation: { stepsize: parseNumber(m[2]!), inverseMetric: m[3] === "dense" ? Array.from({ length: n }, (_, r) => values.slice(r * n, (r + 1) * n)) : values },
  };
}

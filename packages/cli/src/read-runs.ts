import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { summarizeEach, type ChainDraws, type Summary } from "@ppl/ppl/diagnostics";
import { approximationMethod, checkOneMethod, setAside } from "./approximation-files.ts";
import { CliError, usageError } from "./exit-codes.ts";
import { fileKind } from "./read-draws-file.ts";
import { describeFsError } from "./read-file.ts";
import { RunSpill, type ChainFile, type SpilledChain } from "./run-spill.ts";

export type { ChainFile } from "./run-spill.ts";

/**
 * Stan CSV files read from disk, one chain each, their draws in a spill on disk (run-spill.ts)
 * and regrouped per column, read from it when a column is asked for: take one parameter at a
 * time. `release` closes the spill once the command is done with the draws.
 */
export interface Run {
  readonly paths: string[];
  readonly files: ChainFile[];
  readonly chains: ChainDraws;
  /** The saved warmup draws (--save-warmup) of every chain, per column; undefined when a chain has none. */
  readonly warmup: ChainDraws | undefined;
  /** The maximum tree depth the run used (from the header; Stan's 10 when absent). */
  readonly maxTreeDepth: number;
  /** The model name from the header, or null. */
  readonly model: string | null;
  /** CSV files of the directories given that are not chains of the run, each with why (see runNotes). */
  readonly skipped: readonly SkippedFile[];
  /** Every sampling draw of chain `i` (a file's), a column each. */
  chainColumns(i: number): Float64Array[];
  /** Closes the spill of the draws (again: nothing); the draws cannot be read after it. */
  release(): void;
}

/** A CSV file in a run's directory left out of the run, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** What `ppl sample` names its chain files: chain-1.csv …, or draws.csv holding every chain (--output-format single). */
const CHAIN_FILE = /^(chain-\d+|draws)\.csv$/;

/**
 * The CSV files named by `args`: files as given, directories expanded to their chain files in
 * natural order (chain-2 before chain-10): chain-N.csv where there are any (the other CSV files
 * are skipped, and named), else every *.csv (CmdStan's names). Missing paths and empty
 * directories are usage errors. `fromDirectory` holds the paths found by listing a directory.
 */
export function csvPaths(args: readonly string[]): { paths: string[]; fromDirectory: Set<string>; skipped: SkippedFile[] } {
  if (args.length === 0) throw usageError("give at least one Stan CSV file or a directory holding them");
  const out: string[] = [];
  const fromDirectory = new Set<string>();
  const skipped: SkippedFile[] = [];
  for (const a of args) {
    let isDir: boolean;
    try {
      isDir = statSync(a).isDirectory();
    } catch (e) {
      throw usageError(`'${a}' ${describeFsError(e)}; give Stan CSV files or a directory holding them`);
    }
    if (!isDir) {
      out.push(a);
      continue;
    }
    const names = readdirSync(a)
      .filter((n) => n.toLowerCase().endsWith(".csv"))
      .sort((x, y) => x.localeCompare(y, "en", { numeric: true }));
    if (names.length === 0) throw usageError(`directory '${a}' holds no .csv files; give the output directory of \`ppl sample\` or CSV files`);
    const chains = names.filter((n) => CHAIN_FILE.test(n));
    const taken = chains.length > 0 ? chains : names;
    for (const n of names) if (!taken.includes(n)) skipped.push({ path: join(a, n), reason: "not a chain-N.csv file of the run" });
    for (const n of taken) fromDirectory.add(join(a, n));
    out.push(...taken.map((n) => join(a, n)));
  }
  return { paths: out, fromDirectory, skipped };
}

/**
 * Reads the Stan CSV files named by `args` into a spill, a line at a time; a file that is not Stan
 * CSV is a usage error naming it. `spillBlockRows`: the spill's rows a block (a test's small blocks).
 */
export function readRun(args: readonly string[], spillBlockRows?: number): Run {
  const found = csvPaths(args);
  const kinds = found.paths.map((p) => ({ path: p, kind: fileKindOrUsage(p) }));
  const spill = new RunSpill(kinds.reduce((n, k) => n + (k.kind.drawsFile && k.kind.numChains > 0 ? k.kind.numChains : 1), 0), spillBlockRows);
  try {
    return readInto(spill, kinds, found);
  } catch (e) {
    spill.release();
    throw e;
  }
}

// What the file's header says of its kind; a missing, unreadable or directory path is a usage error that names it.
function fileKindOrUsage(p: string): ReturnType<typeof fileKind> {
  let isDir = false;
  try {
    isDir = statSync(p).isDirectory();
  } catch (e) {
    throw usageError(`Stan CSV file '${p}' ${describeFsError(e)}; check the path`);
  }
  if (isDir) throw usageError(`Stan CSV file '${p}' is a directory; give a file`);
  try {
    return fileKind(p);
  } catch (e) {
    throw usageError(`Stan CSV file '${p}' cannot be read: ${describeFsError(e)}`);
  }
}

function readInto(spill: RunSpill, kinds: readonly { path: string; kind: ReturnType<typeof fileKind> }[], found: ReturnType<typeof csvPaths>): Run {
  const skipped = [...found.skipped];
  const paths: string[] = [];
  const chains: SpilledChain[] = [];
  for (const { path: p, kind } of kinds) {
    let read: SpilledChain;
    try {
      if (kind.drawsFile) {
        // One file of every chain (--output-format single): a chain each, named by its chain.
        const all = spill.readDrawsFile(p);
        chains.push(...all);
        paths.push(...all.map((c) => `${p} (chain ${c.file.config["id"]})`));
        continue;
      }
      read = spill.readChainFile(p, setAside);
    } catch (e) {
      if (e instanceof CliError) throw e;
      const why = e instanceof Error ? e.message : String(e);
      // A stray CSV file beside CmdStan's chain files is skipped; one named on the command line is an error.
      if (!found.fromDirectory.has(p)) throw usageError(`'${p}' is not a valid Stan CSV file: ${why}`);
      skipped.push({ path: p, reason: `not a Stan CSV file: ${why}` });
      continue;
    }
    // Every chain file, ours or CmdStan's, leads with lp__ (laplace.csv, with log_p__ and log_g__,
    // says its method); a table of something else may still parse.
    if (found.fromDirectory.has(p) && !read.file.columns.includes("lp__") && approximationMethod(read.file) === undefined) {
      skipped.push({ path: p, reason: "no lp__ column, so not a chain's draws" });
      spill.forget(read);
      continue;
    }
    chains.push(read);
    paths.push(p);
  }
  const files = chains.map((c) => c.file);
  if (files.length === 0) throw usageError(`no Stan CSV files among ${skipped.map((s) => `'${s.path}'`).slice(0, 3).join(", ")}${skipped.length > 3 ? ", …" : ""} (${skipped[0]!.reason}); give the output directory of \`ppl sample\` or CSV files`);
  checkOneMethod(paths, files);
  checkOneRun(paths, files);
  const other = chains.findIndex((c) => c.chain < 0);
  if (other >= 0) throw usageError(`the files do not belong to one run: '${paths[other]}' has different columns than chain 1 ('${paths[0]}')`);
  const draws = spill.draws(chains);
  if (draws.drawsPerChain === 0) {
    const short = paths.filter((_, i) => files[i]!.drawCount === 0);
    throw usageError(`${short.map((p) => `'${p}'`).join(", ")} ${short.length > 1 ? "hold" : "holds"} no sampling draws (was the run stopped during warmup?); nothing to summarize`);
  }
  if (Object.keys(draws.parameters).length === 0) throw usageError(`'${paths[0]}' has no parameter columns; nothing to summarize`);
  const depth = Number(files[0]!.config["max_depth"]);
  const model = files[0]!.config["model"] ?? null;
  return {
    paths, files, chains: draws, warmup: files.every((f) => f.warmupCount > 0) ? spill.warmupDraws(chains) : undefined,
    maxTreeDepth: Number.isInteger(depth) && depth > 0 ? depth : 10, model, skipped,
    chainColumns: (i) => spill.chainColumns(chains[i]!),
    release: () => spill.release(),
  };
}

/** The diagnostics summary of a run: every parameter, and the sampler when its columns are present. */
export function summarizeRun(run: Run): Summary {
  return summarizeDraws(run.chains, run.maxTreeDepth);
}

/** The diagnostics summary of draws regrouped per column (read from files, or spilled by the sampler's writer): one parameter at a time. */
export function summarizeDraws(chains: ChainDraws, maxTreeDepth: number): Summary {
  const { parameters, sampler } = chains;
  // By name, so that draws that are read when asked for (ChainFiles.draws) are read one parameter at a
  // time, and through the source where there is one (a stretch of a chain at a time).
  return summarizeEach(Object.keys(parameters), (name) => chains.source?.(name) ?? parameters[name]!, { ...(sampler !== undefined ? { sampler } : {}), maxTreeDepth });
}

/**
 * The header settings that chain groups of one run share (`--first-chain` runs, merged by
 * `ppl summary DIR1 DIR2 …`, `ppl report` and `ppl merge`); `id`, `num_chains`, file paths, dates
 * and the device may differ. A key that a file lacks (CmdStan's files have no data_hash) is not compared.
 */
export const RUN_KEYS = [
  "model", "method", "data_hash", "seed", "num_samples", "num_warmup", "save_warmup", "thin", "delta", "gamma", "kappa", "t0",
  "init_buffer", "term_buffer", "window", "engine", "max_depth", "metric", "stepsize", "stepsize_jitter", "init", "dtype",
] as const;

/** Refuses files that are not chains of one run: a header setting that differs, or (files of `ppl sample`) one chain id twice; one line naming it. */
export function checkOneRun(paths: readonly string[], files: readonly { readonly config: Readonly<Record<string, string>> }[]): void {
  for (const key of RUN_KEYS) {
    const at = files.findIndex((f) => f.config[key] !== undefined);
    if (at < 0) continue;
    const want = files[at]!.config[key]!;
    const other = files.findIndex((f) => f.config[key] !== undefined && f.config[key] !== want);
    if (other >= 0) {
      throw usageError(
        `the files are not chains of one run: ${key} is ${want} in '${paths[at]}' but ${files[other]!.config[key]} in '${paths[other]}'; ` +
          "merge only chain groups sampled with the same model, data, seed and settings (different --first-chain ranges)",
      );
    }
  }
  // Only for files of `ppl sample` (they carry data_hash): stansummary takes a CmdStan file twice
  // as two chains, and so does this tool.
  if (!files.every((f) => f.config["data_hash"] !== undefined)) return;
  const seen = new Map<string, number>();
  files.forEach((f, i) => {
    const id = f.config["id"];
    if (id === undefined) return;
    const before = seen.get(id);
    if (before !== undefined) {
      throw usageError(`the files are not chains of one run: chain id ${id} is in both '${paths[before]}' and '${paths[i]}'; give each chain once (chain groups need disjoint --first-chain ranges)`);
    }
    seen.set(id, i);
  });
}

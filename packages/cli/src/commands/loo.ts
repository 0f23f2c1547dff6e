/**
 * `ppl loo DIR` and `ppl loo --compare DIR1 DIR2 …`: PSIS-LOO from the log_lik columns that
 * `ppl sample --log-lik` writes, computed as R's loo 2.5.1 (r_eff from the chains), and
 * loo_compare's differences between runs.
 */
import { LOG_LIK_NAME, loo, looCompare } from "@ppl/ppl";
import { ExitCode, modelError, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { formatLoo, formatLooCompare, looJson } from "../loo-text.ts";
import { compareDataHashes, shortHash } from "../data-hash.ts";
import { readRun, type Run } from "../read-runs.ts";
import { runNotes } from "../run-notes.ts";

/** Options of `ppl loo`. */
export interface LooCommandOptions {
  readonly compare: boolean;
  readonly json: boolean;
  /** Compare runs whose recorded data differ (a loud warning instead of a usage error). */
  readonly force?: boolean;
}

/** One run's log-likelihood, [observation][chain][draw], and where it came from. */
interface RunLogLik {
  readonly dir: string;
  readonly logLik: Float64Array[][];
  readonly chains: number;
  readonly drawsPerChain: number;
  /** The header of its first file (data_hash, observed_hash). */
  readonly config: Readonly<Record<string, string>>;
}

/** Prints PSIS-LOO of one run, or the comparison of several; returns the exit code. */
export function looCommand(dirs: readonly string[], opts: LooCommandOptions, io: CommandIO): ExitCodeValue {
  if (opts.compare && dirs.length < 2) throw usageError("--compare needs at least two directories: ppl loo --compare DIR1 DIR2 …");
  if (!opts.compare && dirs.length !== 1) throw usageError(`give one directory (got ${dirs.length}); to compare runs, use ppl loo --compare ${dirs.join(" ")}`);
  const runs = dirs.map((d) => readLogLik(d, io));
  if (opts.compare) checkSameData(runs, opts.force ?? false, io);
  const results = runs.map((r) => loo(r.logLik));
  if (!opts.compare) {
    const [run, result] = [runs[0]!, results[0]!];
    io.stdout.write(opts.json ? JSON.stringify(looJson(result), null, 2) + "\n" : formatLoo(result, run));
    return ExitCode.ok;
  }
  const n = runs[0]!.logLik.length;
  const other = runs.find((r) => r.logLik.length !== n);
  if (other !== undefined) {
    throw usageError(`'${other.dir}' has ${other.logLik.length} log_lik columns and '${runs[0]!.dir}' has ${n}: compare runs of models of the same data`);
  }
  const rows = looCompare(runs.map((r, i) => ({ name: r.dir, loo: results[i]! })));
  if (opts.json) io.stdout.write(JSON.stringify(rows, null, 2) + "\n");
  else {
    io.stdout.write(formatLooCompare(rows));
    // The k diagnostics of each run still matter: a difference is only as reliable as its terms.
    runs.forEach((r, i) => {
      for (const w of results[i]!.warnings) io.stderr.write(`warning: '${r.dir}': ${w}\n`);
    });
  }
  return ExitCode.ok;
}

// log_lik[1] … log_lik[N] of the run in `dir`, each [chain][draw], checked to be complete and finite.
function readLogLik(dir: string, io: CommandIO): RunLogLik {
  const run = readRun([dir]);
  try {
    return logLikOf(run, dir, io);
  } finally {
    run.release();
  }
}

// The run's log_lik columns, each read from its spill (the other columns are not read).
function logLikOf(run: Run, dir: string, io: CommandIO): RunLogLik {
  for (const note of runNotes(run)) io.stderr.write(note + "\n");
  const { parameters, drawsPerChain } = run.chains;
  const pattern = new RegExp(`^${LOG_LIK_NAME}\\[(\\d+)\\]$`);
  const indices = Object.keys(parameters)
    .map((name) => pattern.exec(name))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  if (indices.length === 0) throw usageError(`'${dir}' has no log_lik columns: sample with --log-lik`);
  if (indices.some((k, i) => k !== i + 1)) {
    throw usageError(`'${dir}': the log_lik columns are not log_lik.1 … log_lik.${indices.length} (found log_lik.${indices.join(", log_lik.")}); sample again with --log-lik`);
  }
  const lengths = run.files.map((f) => f.drawCount);
  if (lengths.some((len) => len !== drawsPerChain)) {
    io.stderr.write(`note: '${dir}': the chains have ${lengths.join(", ")} draws; each is cut to the shortest (${drawsPerChain})\n`);
  }
  const logLik = indices.map((k) => parameters[`${LOG_LIK_NAME}[${k}]`]!);
  logLik.forEach((chains, i) =>
    chains.forEach((draws, c) => {
      const s = draws.findIndex((v) => !Number.isFinite(v));
      if (s >= 0) {
        throw modelError(`'${dir}': log_lik.${i + 1} is ${draws[s]} at chain ${c + 1}, draw ${s + 1}; PSIS-LOO needs a finite log-likelihood at every draw (the model gives that observation zero density there)`);
      }
    }),
  );
  return { dir, logLik, chains: logLik[0]!.length, drawsPerChain, config: run.files[0]!.config };
}

/**
 * Refuses (or, with --force, warns loudly about) runs fitted to other observations than the first
 * run's: loo_compare's differences compare models of the same data. The observed values' hash is
 * compared where both runs record it, else the data file's; a run that records neither is noted.
 */
function checkSameData(runs: readonly RunLogLik[], force: boolean, io: CommandIO): void {
  const [first, ...rest] = runs;
  for (const r of rest) {
    const c = compareDataHashes(first!.config, r.config, ["observed_hash", "data_hash"]);
    if (c === undefined) {
      const which = [first!, r].filter((x) => x.config["data_hash"] === undefined).map((x) => `'${x.dir}'`).join(" and ");
      io.stderr.write(`note: ${which} record${which.includes(" and ") ? "" : "s"} no data hash (not written by ppl sample); that '${first!.dir}' and '${r.dir}' were fitted to the same data is not checked\n`);
      continue;
    }
    if (c.same) continue;
    const what = c.key === "observed_hash" ? "observed data" : "data files";
    const msg = `'${first!.dir}' and '${r.dir}' were fitted to different ${what} (${c.key} ${shortHash(c.a)} and ${shortHash(c.b)})`;
    if (!force) throw usageError(`${msg}; loo --compare compares models of the same observations (--force compares them anyway)`);
    io.stderr.write(`WARNING: ${msg}; compared anyway (--force): the elpd differences below mean nothing unless the observations are the same\n`);
  }
}

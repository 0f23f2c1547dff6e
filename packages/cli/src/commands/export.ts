/**
 * `ppl export DIR -o run.nc`: a run's Stan CSV files as ArviZ's InferenceData in one netCDF4 file
 * (`az.from_netcdf("run.nc")`): posterior, sample_stats (ArviZ's names), log_likelihood and
 * posterior_predictive from the run's columns, prior and prior_predictive from a `--prior` run,
 * observed_data (the data observe terms condition on) and constant_data (the other data) from the
 * data file. The predictive draws and log-likelihood are named after the observed variable, so
 * `az.plot_ppc(az.from_netcdf("run.nc"))` and `az.loo_pit(idata, y="y")` need no arguments.
 */
import { existsSync, writeFileSync } from "node:fs";
import {
  dataGroups, fromStanCsvName, inferenceDataAttributes, inferenceGroup, observedTermsOf, readDataLayout, runGroups, splitName, writeNetcdf, type ChainDraws, type InferenceGroup,
} from "@ppl/ppl";
import { basename, resolve } from "node:path";
import { approximationMethod } from "../approximation-files.ts";
import { ExitCode, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { loadData } from "../load-data.ts";
import { readRun, type Run } from "../read-runs.ts";
import { describeFsError } from "../read-file.ts";
import { firstLine } from "../load-model.ts";
import { pickEntries, selectVariables } from "../variable-filter.ts";

/** Options of `ppl export`. */
export interface ExportCommandOptions {
  readonly output: string;
  /** The output directory of `ppl sample --prior` for the prior groups. */
  readonly prior?: string;
  /** Data file for observed_data and constant_data; by default the one the run's header names. */
  readonly data?: string;
  readonly quiet: boolean;
  /** The variables written (whole variables by base name: theta, log_lik, y_rep); all by default. The sampler's statistics and the data always are. */
  readonly variables?: readonly string[];
}

// --variables for a file of whole variables: the base names it selects (undefined: all); an element is refused.
function keptBases(names: readonly string[], wanted: readonly string[] | undefined): ReadonlySet<string> | undefined {
  if (wanted === undefined) return undefined;
  const element = wanted.find((w) => splitName(fromStanCsvName(w.trim())).index.length > 0);
  if (element !== undefined) throw usageError(`--variables: export writes whole variables; give '${splitName(fromStanCsvName(element.trim())).base}', not '${element}'`);
  return new Set(selectVariables(names, wanted, false).names.map((n) => splitName(n).base));
}

// The draws with only the parameters of the kept base names (the sampler's columns stay).
function onlyBases(chains: ChainDraws, keep: ReadonlySet<string> | undefined): ChainDraws {
  if (keep === undefined) return chains;
  return { ...chains, parameters: pickEntries(chains.parameters, Object.keys(chains.parameters).filter((n) => keep.has(splitName(n).base))) };
}

const samplerColumnsOf = (run: Run): string[] => run.files[0]!.columns.filter((c) => c.endsWith("__"));
const isPriorRun = (run: Run): boolean => run.files[0]!.config["prior"] === "1";

/** Writes the InferenceData file; returns the exit code. */
export async function exportCommand(dir: string, opts: ExportCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const read = readRun([dir]);
  let priorRun: Run | undefined;
  try {
    if (opts.prior !== undefined) priorRun = readRun([opts.prior]);
    return await exportRun(read, dir, priorRun, opts, io);
  } finally {
    read.release();
    priorRun?.release();
  }
}

// Writes the InferenceData file of a run read (and of its prior run), its draws read from their spills.
async function exportRun(read: Run, dir: string, priorRun: Run | undefined, opts: ExportCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const keep = keptBases(Object.keys(read.chains.parameters), opts.variables);
  const run = { ...read, chains: onlyBases(read.chains, keep) };
  const prior = isPriorRun(run);
  const method = approximationMethod(run.files[0]!);
  const layout = readDataLayout(run.files[0]!.config);
  const groups: InferenceGroup[] = runGroups(run.chains, samplerColumnsOf(run), prior, layout);
  // Warmup draws saved with --save-warmup: ArviZ's warmup_posterior, warmup_sample_stats, ….
  if (!prior && run.warmup !== undefined) {
    const warmup = onlyBases(run.warmup, keep);
    groups.push(...runGroups(warmup, samplerColumnsOf(run), false, layout).map((g) => ({ ...g, name: `warmup_${g.name}` })));
  }
  if (opts.prior !== undefined && priorRun !== undefined) {
    if (!isPriorRun(priorRun)) throw usageError(`--prior '${opts.prior}' is not the output of \`ppl sample --prior\`; give the directory of a prior run`);
    if (prior) throw usageError(`'${dir}' is itself a prior run; give the posterior run's directory, with --prior '${opts.prior}'`);
    groups.push(...runGroups(onlyBases(priorRun.chains, keep), [], true, readDataLayout(priorRun.files[0]!.config)));
  }
  // The data the run sampled, as the header names it (absent for a model without data).
  const recorded = run.files[0]!.config["data.file"] || undefined;
  const dataFile = opts.data ?? (recorded !== undefined && existsSync(recorded) ? recorded : undefined);
  if (opts.data === undefined && recorded !== undefined && dataFile === undefined && !opts.quiet) {
    io.stderr.write(`note: the run's data file '${recorded}' is not there; observed_data and constant_data are left out (give --data FILE)\n`);
  }
  if (dataFile !== undefined) {
    const data = loadData(dataFile);
    if (typeof data === "object" && data !== null && !Array.isArray(data)) {
      groups.push(...dataGroups(data as Record<string, unknown>, observedTermsOf(run.chains, layout), layout));
    }
  }
  // Draws of optimize, laplace, variational or pathfinder are not MCMC: the file says which.
  const attrs = inferenceDataAttributes(run.model ?? undefined, method);
  const output = resolve(opts.output);
  // h5wasm reports a file it cannot create on stderr and goes on; a plain write first turns a bad path into one line.
  try {
    writeFileSync(output, "");
  } catch (e) {
    throw usageError(`cannot write '${opts.output}': ${describeFsError(e)}; choose another path with -o`);
  }
  try {
    await writeNetcdf(output, groups.filter((g) => g.variables.length > 0).map((g) => inferenceGroup(g.name, g.variables)), attrs);
  } catch (e) {
    throw usageError(`cannot write '${opts.output}': ${firstLine(e)}; choose another path with -o`);
  }
  if (!opts.quiet) {
    const shown = groups.filter((g) => g.variables.length > 0).map((g) => `${g.name} (${g.variables.length})`).join(", ");
    io.stderr.write(`wrote ${basename(output)}: ${shown}; open it with arviz.from_netcdf("${opts.output}")\n`);
  }
  return ExitCode.ok;
}

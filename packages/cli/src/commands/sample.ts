/** `ppl sample MODEL.ts`: run NUTS, stream Stan CSV per chain, write summary.json, print the summary. */
import { readdirSync, unlinkSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { basename, join, resolve } from "node:path";
import {
  AdaptationError, dataLayoutKeys, findStuckChains, reinitialisedNote, InitializationError, SAMPLER_COLUMNS, sampleAsync, sampleConfig, samplingEvidence, StepSizeError, stuckWarning, stopSamplerThreads, summaryToJson, writeSummaryJson, type ConfigNode,
  type SampleResult,
} from "@ppl/ppl";
import { placedSampleOptions, type PendingRunnerDecision, type PlacedPlan } from "@ppl/ppl/runner";
import type { PendingGpu } from "@ppl/ppl-vulkan";
import type * as Vulkan from "@ppl/vulkan";
import { ChainFiles } from "../chain-files.ts";
import { DRAWS_FILE, DrawsFile } from "../draws-file.ts";
import { TargetEss } from "../target-ess.ts";
import { checkPlacementFlags, placeSample } from "../choose-backend.ts";
import { compileWithData } from "../compile.ts";
import { explainInitFailure } from "../init-failure.ts";
import { deviceError, ExitCode, modelError, usageError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { hashDataFile } from "../data-hash.ts";
import { loadData } from "../load-data.ts";
import { generatedColumns } from "../generated-columns.ts";
import { logLikColumns } from "../log-lik-columns.ts";
import { firstLine, loadModel } from "../load-model.ts";
import { prepareOutputDir } from "../output-dir.ts";
import { lockOutputDir } from "../output-lock.ts";
import { Progress } from "../progress.ts";
import { isWriteFailure, writeFailureError } from "../write-failure.ts";
import { pastStopDeadline, STOP_WITHIN_SECONDS, stopExitCode, stopOnSignals, stoppedBy } from "../stop-signals.ts";
import { phaseTracer, summaryStepDelayMs } from "../phase-trace.ts";
import { summarizeInTime } from "../summary-in-time.ts";
import { formatSummary } from "../summary-text.ts";
import { nestedRhatLines, nestedRhats, withNestedRhat } from "../nested-rhat-lines.ts";
import { filterSummary, hiddenNote, selectVariables } from "../variable-filter.ts";
import { readInitFile, readInvMetricFile } from "../start-values.ts";
import { readTextFile } from "../read-file.ts";
import { PATHFINDER_INIT, pathfinderBackend, pathfinderInits } from "../pathfinder-init.ts";
import { checkBackend, checkpointPlan, checkpointSampleOptions, cutFiles } from "../run-checkpoint.ts";
import { priorCommand } from "./prior.ts";
import type { SampleCommandOptions } from "./sample-options.ts";

/** Runs `ppl sample`; returns the exit code (0, 1 with --strict and failed diagnostics, 130 when interrupted). */
export async function sampleCommand(modelPath: string, options: SampleCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  if (options.maxDraws !== undefined && options.targetEss === undefined) throw usageError("--max-draws caps the draws of --target-ess; give --target-ess N, or set the draws with --draws");
  // With --target-ess the run samples up to the cap, which the files' header gives as num_samples.
  const opts = options.targetEss !== undefined ? { ...options, draws: options.maxDraws ?? options.draws } : options;
  const first = opts.firstChain ?? 0;
  if (opts.prior && first !== 0) throw usageError("--first-chain splits NUTS chains over runs; --prior draws exact independent draws, so run it once with all --chains");
  if (opts.prior) return priorCommand(modelPath, opts, io);
  const info = (line: string): void => {
    if (!opts.quiet) io.stderr.write(line + "\n");
  };
  // Only look for devices when Vulkan is an option: --backend cpu never loads the native addon.
  const hmc = (opts.algorithm ?? "nuts") === "hmc";
  // ChEES and MEADS adapt across chains on the host, in lockstep.
  const manyChain = opts.algorithm === "chees" || opts.algorithm === "meads";
  if (manyChain && opts.metric === "dense") throw usageError(`--algorithm ${opts.algorithm} adapts a diagonal metric from the variance over chains; drop --metric dense`);
  if (opts.algorithm === "meads" && (opts.chains % 4 !== 0 || opts.chains < 8)) throw usageError(`--algorithm meads splits the chains into 4 folds of at least 2; give --chains a multiple of 4, at least 8 (not ${opts.chains})`);
  if (opts.superchains !== undefined && opts.chains % opts.superchains !== 0) {
    throw usageError(`--superchains ${opts.superchains} does not divide --chains ${opts.chains} into equal groups; pick a divisor of ${opts.chains}`);
  }
  // Beyond ONE_FILE_CHAINS chains (or when asked) every chain goes into one draws.csv: one open file, not thousands.
  const single = opts.outputFormat === "single" || ((opts.outputFormat ?? "auto") === "auto" && opts.chains > ONE_FILE_CHAINS);
  if (single && opts.saveWarmup) throw usageError("--save-warmup writes warmup draws before each chain's adaptation block, which one draws.csv of every chain cannot hold; add --output-format chains, or drop --save-warmup");
  // --checkpoint-every and --resume (run-checkpoint.ts): one file per chain, on the CPU unless --backend vulkan asks for the GPU.
  const checkpoints = checkpointPlan(opts, single);
  if (opts.steps !== undefined && !hmc) throw usageError("--steps is the number of leapfrog steps of --algorithm hmc; NUTS chooses its own (drop --steps, or add --algorithm hmc)");
  // auto would start on the CPU and may move to a GPU midway, which a checkpoint cannot follow: it takes the CPU.
  const request = checkpoints !== undefined && opts.backend !== "vulkan" ? { ...opts, backend: "cpu" as const } : opts;
  if (opts.threads !== undefined && request.backend === "vulkan") throw usageError("--threads spreads the CPU sampler's chains over threads; the GPU sampler runs every chain itself (drop --threads, or use --backend cpu)");
  // @ppl/vulkan (and its native addon) is loaded only where the backend may be a GPU, so that --backend cpu starts without it.
  const vulkan = request.backend === "cpu" ? undefined : await import("@ppl/vulkan");
  const listing = vulkan === undefined ? { devices: [], reason: null } : vulkan.listDevices();
  // Usage errors before the model is loaded (bundled and run: seconds, and an error of its own
  // would hide them): the flags the placement refuses whatever the model, and the files named.
  checkPlacementFlags({ ...request, chains: opts.chains, maxDepth: opts.maxDepth, metric: opts.metric, algorithm: opts.algorithm ?? "nuts" }, listing);
  const data = loadData(opts.data);
  if (typeof opts.init === "string" && opts.init !== PATHFINDER_INIT) readTextFile(opts.init, "init file");
  if (opts.invMetric !== undefined) readTextFile(opts.invMetric, "inverse metric file");
  // With --typecheck, the TypeScript compiler first (commands/check.ts): a type error stops the run before it starts.
  if (opts.typecheck) await (await import("./check.ts")).typecheckBeforeRun(modelPath, io);
  const model = await loadModel(modelPath);
  const compiled = compileWithData(model, data, modelPath, opts.data, (line) => io.stderr.write(line + "\n"));
  // The library's placement (placeRun): the backend, the device(s) and their groups of chains, the
  // float type, whether the run starts on the CPU; a method other than NUTS (--algorithm) takes its
  // transitions on the host, the GPU serving its batched gradient where the model's rounds gain from it.
  const plan = placeSample({ ...request, chains: opts.chains, maxDepth: opts.maxDepth, metric: opts.metric, algorithm: opts.algorithm ?? "nuts", model: compiled }, listing);
  checkBackend(checkpoints, plan);
  // The CPU sampler's threads (a run on the GPU's runner takes one: placedSampleOptions).
  const threads = Math.min(opts.threads ?? availableParallelism(), opts.chains);
  const seed = opts.seed ?? checkpoints?.resumed?.checkpoint.settings.seed ?? Math.floor(Math.random() * 2 ** 32);
  // Read before the output directory is made, so that a bad file leaves nothing behind.
  const initValues = opts.init === PATHFINDER_INIT ? await pathfinderInits(compiled, opts.chains, first, seed, io, pathfinderBackend(plan))
    : typeof opts.init === "string" ? readInitFile(opts.init, compiled, opts.chains, seed, first) : undefined;
  for (const note of initValues?.notes ?? []) io.stderr.write(note + "\n");
  const invMetric = opts.invMetric !== undefined ? readInvMetricFile(opts.invMetric, opts.metric, compiled.dim) : undefined;
  // Once the model and data are known to fit (so that a run failing there leaves no directory
  // behind), before the density is built for a device and anything is sampled: a path that cannot
  // hold the run fails now.
  const dir = await prepareOutputDir(opts.output, { first, count: opts.chains });
  // One writer per directory: a second run into it is refused while this one writes (released on exit).
  lockOutputDir(dir, (line) => io.stderr.write(line + "\n"));
  const logLik = logLikColumns(compiled, opts.logLik ?? false);
  const generated = generatedColumns(compiled, seed, opts.predictive ?? false);
  const shown = selectVariables([...compiled.constrainedNames(), ...generated.names, ...logLik.names], opts.variables, true);
  const target = opts.targetEss !== undefined ? new TargetEss(opts.targetEss, shown.names, opts.chains, opts.superchains) : undefined;
  let opened;
  try {
    opened = await (await import("@ppl/ppl-vulkan")).prepareRun(compiled, plan);
  } catch (e) {
    // --data-precision f16 and data beyond the 16-bit range: the option is what to change.
    if (plan.backend === "vulkan" && e instanceof (await import("@ppl/ppl-vulkan")).DataPrecisionError) throw usageError(e.message);
    if (vulkan !== undefined && (e instanceof vulkan.VulkanError || e instanceof vulkan.ShaderCompileError || e instanceof vulkan.ShaderCompilerMissingError)) {
      throw deviceError(`the Vulkan device could not run the model's sampler: ${firstLine(e)}; use --backend cpu`);
    }
    throw modelError(`model '${compiled.name}': its log density could not be compiled for the ${plan.backend} backend: ${firstLine(e)}`);
  }
  const density = opened.density;

  // Said once the model is ready, so that a model or data error stands alone on stderr.
  const note = plan.note ?? `backend: ${plan.backend} (${plan.dtype})`;
  info(opened.pendingGpu !== undefined ? `${note}; the run starts on the CPU backend (${plan.cpuFallback?.dtype ?? "f64"}), builds the GPU's kernel meanwhile if the run is long enough to gain from it, and moves there if it measures faster` : note);
  if (opened.detail) info(opened.detail);
  if (opened.warning) io.stderr.write(opened.warning + "\n");
  removeStaleChains(dir, first + opts.chains, single, info);
  cutFiles(checkpoints, dir, opts.output, Array.from({ length: opts.chains }, (_, c) => join(dir, `chain-${first + c + 1}.csv`)));
  const dataHash = hashDataFile(opts.data);
  const started = new Date().toISOString();
  let files: ChainFiles | DrawsFile;
  try {
    const columns = [...compiled.constrainedNames(), ...generated.names, ...logLik.names];
    const config = (c: number, file: string): ConfigNode[] => headerConfig(opts, plan, compiled.name, modelPath, seed, started, first + c, join(dir, file), dataHash, dataLayoutKeys(model, compiled), single);
    files = single
      ? new DrawsFile(dir, opts.chains, columns, config(0, DRAWS_FILE), first)
      : new ChainFiles(dir, opts.chains, columns, (c) => config(c, `chain-${first + c + 1}.csv`), SAMPLER_COLUMNS, first, { resume: checkpoints?.resumed !== undefined });
  } catch (e) {
    const refused = writeFailureError(e);
    if (refused !== null) throw refused;
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "EMFILE" || code === "ENFILE") throw usageError(`the system's limit on open files was reached (${code}); raise it (ulimit -n) or run fewer --chains`);
    throw usageError(`cannot write into the output directory '${opts.output}': ${firstLine(e)}; choose another with --output`);
  }

  const progress = new Progress(io.stderr, opts.warmup, opts.draws, opts.chains, !opts.quiet, opts.refresh);
  const controller = new AbortController();
  const targetMet = new AbortController();
  // First Ctrl-C (or SIGTERM, SIGHUP): stop after the current iteration and close the files with
  // their timing. A second one exits at once; every draw already written is a complete line on disk.
  // Signals stay handled until the command ends: the summary after a stop gets what is left of the
  // STOP_WITHIN_SECONDS a stop allows (a second is kept for writing it out and exiting), else it is left to `ppl summary DIR`.
  const releaseSignals = stopOnSignals(controller);
  const summaryExpired = pastStopDeadline(controller.signal, STOP_WITHIN_SECONDS - 1);
  const phase = phaseTracer((line) => io.stderr.write(line));
  // The GPU's sampler once prepared, for a run that starts on the CPU.
  let gpuDetail: PendingGpu | null = null;
  let result: SampleResult;
  try {
    result = await sampleAsync(density, {
      chains: plan.chains,
      warmup: opts.warmup,
      draws: opts.draws,
      seed,
      firstChain: first,
      metric: plan.metric,
      adaptDelta: opts.adaptDelta,
      maxDepth: plan.maxDepth,
      initRadius: typeof opts.init === "number" ? opts.init : 2,
      ...(initValues ? { init: initValues.perChain } : {}),
      ...(invMetric ? { invMetric } : {}),
      stepSize: opts.stepsize ?? 1,
      sampler: hmc ? "hmc" : "nuts",
      hmcSteps: opts.steps ?? 10,
      ...(manyChain ? { method: opts.algorithm ?? "nuts" } : {}),
      ...(opts.superchains !== undefined ? { superchainSize: opts.chains / opts.superchains } : {}),
      // A met --target-ess stops the sampler as a signal does, without being one (the run is complete).
      signal: target === undefined ? controller.signal : AbortSignal.any([controller.signal, targetMet.signal]),
      // The draws go to the files (and their spill) only: the memory used does not grow with --draws.
      keepDraws: false,
      ...checkpointSampleOptions(checkpoints, dir, files.paths, { backend: plan.backend, dtype: plan.dtype }),
      // Where the run was placed: the GPU's runner, or the CPU's threads and, where `auto` took a GPU
      // on its own, the move to the GPU once its kernel is built and measures faster.
      ...placedSampleOptions(opened, threads, {
        onPrepared: (gpu) => (gpuDetail = gpu),
        onDecision: (d: PendingRunnerDecision) => {
          if (d.moved && gpuDetail !== null) {
            info(gpuDetail.detail);
            if (gpuDetail.warning !== undefined) io.stderr.write(gpuDetail.warning + "\n");
          }
          const line = pendingLine(d, plan.cpuFallback?.dtype ?? "f64");
          info(line);
          files.writeComment(line);
        },
      }),
      // A stuck chain started afresh: said on stderr as it happens, and in its CSV where its draws stand.
      onReinitialised: (r) => {
        const note = reinitialisedNote(r.stuck, first + r.chain + 1, r.iteration);
        io.stderr.write(note + "\n");
        files.writeChainComment(r.chain, note);
      },
      // Each chain's adapted step size and metric go into its CSV between the warmup and the sampling draws.
      onAdapted: (chain, adaptation) => files.writeAdaptation([adaptation], chain),
      onDraw: (d) => {
        phase(d.warmup ? "warmup" : "sampling");
        progress.update(d.chain, d.iteration);
        const kept = keptIndex(d.iteration, opts.warmup, opts.thin ?? 1, opts.saveWarmup ?? false);
        if (kept === null) return;
        const row = logLik.row(generated.row(d.chainId, kept, density.generated(d.position)));
        if (d.warmup) files.writeWarmupDraw(d, row);
        else if (target === undefined) files.writeDraw(d, row);
        else if (target.wants(d.chain)) {
          files.writeDraw(d, row);
          // Met: the run stops after this iteration, and no chain writes past the draws checked.
          if (target.drawn(d.chain, () => files.draws())) targetMet.abort();
        }
      },
    });
  } catch (e) {
    progress.finish();
    // A disk that refused a row refuses the footers too: the files stay as they are, ending at their last complete row.
    try {
      files.close();
    } catch (closing) {
      if (!isWriteFailure(closing)) throw closing;
    }
    files.release();
    releaseSignals();
    const settings = { seed, initRadius: typeof opts.init === "number" ? opts.init : 2, given: initValues?.perChain, firstChain: first };
    throw samplingError(e, compiled.name, opts.output, vulkan, (err) => explainInitFailure(err, compiled, modelPath, settings));
  } finally {
    opened.dispose();
  }
  try {
    return await finishRun();
  } finally {
    releaseSignals();
  }

  // The files closed, and the summary of the draws made (from the files), as far as a stop leaves time for it.
  async function finishRun(): Promise<ExitCodeValue> {
    progress.finish();
    files.close({ warmup: result.timing.warmupSeconds, sampling: result.timing.samplingSeconds });
    // The sampler's worker threads stay for later runs of a process that makes several; this one
    // makes none, and each holds its own heap, the library and the model (tens of MB) that the
    // summary's arrays would come on top of.
    await stopSamplerThreads();

    if (result.aborted && target?.stopAt == null) {
      const signal = stoppedBy(controller.signal);
      if (result.drawsDone === 0) {
        io.stderr.write(
          `interrupted by ${signal} during warmup (after ${result.warmupDone} of ${opts.warmup} warmup iterations): no sampling draws were made, ` +
            `so there is nothing to summarize (the ${files.paths.length} CSV files in ${opts.output} hold their headers only); run again, with fewer --warmup iterations to finish sooner\n`,
        );
        return stopExitCode(signal);
      }
      // The draws so far are summarized as a finished run's are, so that a job stopped by its time
      // limit leaves summary.json next to its CSV files, when that fits in the time a stop leaves.
      phase("summary");
      const partial = await summarizeInTime(files.draws(), plan.maxDepth, summaryExpired, summaryStepDelayMs());
      if (partial !== null) writeFileSync(join(dir, "summary.json"), writeSummaryJson(partial));
      files.release();
      io.stderr.write(
        `interrupted by ${signal}: ${result.drawsDone} of ${opts.draws} draws per chain (after ${result.warmupDone} of ${opts.warmup} warmup iterations) ` +
          `are in ${files.paths.length} valid CSV files in ${opts.output}, ` +
          (partial !== null ? "summarized in summary.json" : `not summarized (there was no time left: a stop ends the command within ${STOP_WITHIN_SECONDS} s)`) +
          `; \`ppl summary ${opts.output}\` prints the summary\n`,
      );
      return stopExitCode(signal);
    }

    const drawn = files.draws();
    phase("summary");
    const summary = await summarizeInTime(drawn, plan.maxDepth, summaryExpired, summaryStepDelayMs());
    if (summary === null) {
      const signal = stoppedBy(controller.signal);
      files.release();
      io.stderr.write(
        `interrupted by ${signal} during the summary: the run is complete and its ${files.paths.length} CSV files in ${opts.output} are valid, ` +
          `but there was no time left for the summary (a stop ends the command within ${STOP_WITHIN_SECONDS} s); \`ppl summary ${opts.output}\` prints it\n`,
      );
      return stopExitCode(signal);
    }
    const k = opts.superchains;
    const nested = k === undefined ? [] : nestedRhats(drawn.parameters, summary.parameters.map((p) => p.name), k);
    writeFileSync(join(dir, "summary.json"), JSON.stringify(withNestedRhat(summaryToJson(summary), nested), null, 2) + "\n");
    io.stdout.write(formatSummary(filterSummary(summary, shown), undefined, hiddenNote(summary, shown)));
    if (k !== undefined) io.stdout.write(nestedRhatLines(nested.filter((v) => shown.names.includes(v.name)), k, opts.chains));
    if (target !== undefined) {
      target.finish(drawn);
      io.stderr.write(target.line() + "\n");
    }
    // A chain whose step size collapsed far below the others' sat in one place: said after the table, as the diagnostics are.
    const stuck = findStuckChains(samplingEvidence(result.adaptation.map((a) => a.stepSize), drawn.columns["treedepth__"]!, plan.maxDepth));
    for (const s of stuck) io.stderr.write(`warning: ${stuckWarning(s, first + s.chain + 1)}\n`);
    files.release();
    const total = result.timing.warmupSeconds + result.timing.samplingSeconds;
    info(`wrote ${files.paths.map((p) => basename(p)).join(", ")} and summary.json to ${opts.output} (seed ${seed}, ${total.toFixed(1)}s)`);
    if (controller.signal.aborted) {
      const signal = stoppedBy(controller.signal);
      io.stderr.write(`interrupted by ${signal} during the summary, which was made in time: the run, its files and summary.json are complete\n`);
      return stopExitCode(signal);
    }
    if (opts.strict && summary.warnings.length > 0) {
      io.stderr.write(`--strict: the diagnostics gave ${summary.warnings.length} warning${summary.warnings.length === 1 ? "" : "s"}; exiting with code 1\n`);
      return ExitCode.diagnosticsFailed;
    }
    return ExitCode.ok;
  }
}

/** Random streams of the generated quantities of saved warmup draws start here, so that the sampling draws' streams are the same with or without --save-warmup. */
const WARMUP_STREAMS = 2 ** 31;

// The index of iteration t among the written draws (addressing the generated quantities' random
// streams, as `ppl generate` does over the files), or null for an iteration not written: every
// thin-th sampling draw, and with --save-warmup every thin-th warmup draw, as CmdStan writes them.
function keptIndex(t: number, warmup: number, thin: number, saveWarmup: boolean): number | null {
  if (t < warmup) return saveWarmup && t % thin === 0 ? WARMUP_STREAMS + t / thin : null;
  const s = t - warmup;
  return s % thin === 0 ? s / thin : null;
}

/** Chains beyond which `--output-format auto` writes one draws.csv. */
export const ONE_FILE_CHAINS = 256;

// chain-K.csv files left by an earlier run with more chains, or written in the other output
// format, would be read as part of this run by `ppl summary DIR` and `ppl report DIR`; they are
// this tool's own outputs, so they go.
function removeStaleChains(dir: string, chains: number, single: boolean, info: (line: string) => void): void {
  const stale = readdirSync(dir).filter((n) => {
    if (n === DRAWS_FILE) return !single;
    const m = /^chain-(\d+)\.csv$/.exec(n);
    return m !== null && (single || Number(m[1]) > chains);
  });
  for (const n of stale) unlinkSync(join(dir, n));
  if (stale.length > 0) info(`removed ${stale.length > 5 ? `${stale.slice(0, 5).join(", ")} and ${stale.length - 5} more` : stale.join(", ")} left in the output directory by an earlier run (more chains, or the other --output-format)`);
}

// The sampler's typed errors come from the model (a log density that is not finite, a posterior the
// step size cannot follow), so they are model errors with a hint at the fix.
function samplingError(e: unknown, name: string, output: string, vulkan: typeof Vulkan | undefined, explain: (e: InitializationError) => string): unknown {
  // A device that fails mid-run (lost, out of memory) is the device's fault, not a bug of ppl.
  if (vulkan !== undefined && e instanceof vulkan.VulkanError) {
    return deviceError(`the Vulkan device failed while sampling: ${firstLine(e)}; the CSV files in ${output} end at the last draw written; run again, or use --backend cpu`);
  }
  if (e instanceof InitializationError) {
    return modelError(`model '${name}': ${e.message}.${explain(e)} Check that the log density is finite somewhere near 0 on the unconstrained scale (priors, constraints, data), or try a smaller --init`);
  }
  if (e instanceof StepSizeError || e instanceof AdaptationError) {
    return modelError(`model '${name}': ${e.message}. The posterior may be improper or badly scaled; check priors, or try --adapt-delta 0.95`);
  }
  return e;
}

/** The settings header of one chain's CSV: CmdStan's settings plus this tool's (backend, dtype, model file). */
// Where a run that started on the CPU while the GPU's kernel was built went, and what it measured:
// for stderr and, as a comment, each CSV file.
export function pendingLine(d: PendingRunnerDecision, dtype: "f32" | "f64"): string {
  const us = (x: number): string => `${(x * 1e6).toPrecision(3)} µs`;
  const threads = `${d.threads} thread${d.threads === 1 ? "" : "s"}`;
  const started = `the CPU backend (${dtype}) sampled iterations 0–${d.iteration - 1} while the GPU's kernel was built`;
  if (d.reason === "failed") return `backend: cpu (${dtype}): the GPU's sampler could not be prepared (${d.error ?? "unknown error"}); the run stayed on the CPU backend (--backend vulkan reports such an error)`;
  if (d.reason === "ended") return `backend: cpu (${dtype}): the run ended before the GPU's kernel was built (--backend vulkan waits for it)`;
  if (d.reason === "short") return `backend: cpu (${dtype}): the run was too short to gain from the GPU, whose kernel was not built (--backend vulkan uses the GPU anyway)`;
  const measured = `a gradient of one chain took ${us(d.runnerSecondsPerGradient)} on the GPU (a trial from iteration ${d.iteration}) and ${us(d.cpuSecondsPerGradient)} on the CPU (${threads})`;
  return d.moved
    ? `backend: moved to vulkan after iteration ${d.iteration}: ${started}; ${measured}`
    : `backend: kept on cpu (${dtype}): ${measured}; --backend vulkan keeps a run on the GPU`;
}

function headerConfig(
  opts: SampleCommandOptions, plan: PlacedPlan, name: string, modelPath: string, seed: number, started: string, chain: number, outputFile: string,
  dataHash: string, layout: Readonly<Record<string, string>>, single: boolean,
): ConfigNode[] {
  return sampleConfig({
    model: name,
    numSamples: opts.draws,
    numWarmup: opts.warmup,
    adaptDelta: opts.adaptDelta,
    maxDepth: opts.maxDepth,
    metric: opts.metric === "dense" ? "dense_e" : "diag_e",
    saveWarmup: opts.saveWarmup ?? false,
    thin: opts.thin ?? 1,
    ...((opts.algorithm ?? "nuts") === "hmc" ? { engine: "static" as const, steps: opts.steps ?? 10 } : {}),
    stepsize: opts.stepsize ?? 1,
    ...(opts.invMetric !== undefined ? { metricFile: resolve(opts.invMetric) } : {}),
    refresh: opts.refresh ?? 100,
    numChains: opts.chains,
    chainId: chain + 1,
    ...(opts.data !== undefined ? { dataFile: resolve(opts.data) } : {}),
    init: opts.init,
    seed,
    outputFile,
    startDatetime: started,
    extra: {
      model_file: resolve(modelPath),
      backend: plan.backend,
      device: plan.devices?.join(",") ?? plan.device ?? "none",
      dtype: plan.dtype,
      ...(opts.dataPrecision === "f16" ? { data_precision: "f16" } : {}),
      backend_requested: opts.backend,
      // Stan's own `algorithm` and `engine` keys say hmc/nuts; the method that ran is this key.
      ...(opts.algorithm === "chees" || opts.algorithm === "meads" ? { sampling_method: opts.algorithm } : {}),
      ...(opts.superchains !== undefined ? { superchains: opts.superchains } : {}),
      ...(single ? { output_format: "single" } : {}),
      ...(opts.targetEss !== undefined ? { target_ess: opts.targetEss } : {}),
      data_hash: dataHash,
      // What `ppl export` reads to lay the data out as ArviZ expects (see data-layout.ts).
      ...layout,
    },
  });
}

/**
 * The `ppl` command line: sample, generate, summary, report, loo, devices. Each command returns its exit code; every
 * user error is a CliError printed as one line (see exit-codes.ts), never a stack trace.
 */
import { Command, CommanderError, Option } from "commander";
import type { GenerateCommandOptions } from "./commands/generate.ts";
import type { SampleCommandOptions } from "./commands/sample-options.ts";
import { addApproximationCommands } from "./approximation-commands.ts";
import { addProjectCommands } from "./project-commands.ts";
import { CliError, ExitCode, type ExitCodeValue } from "./exit-codes.ts";
import { writeFailureError } from "./write-failure.ts";
import { deviceSelection } from "./device-option.ts";
import { processIO } from "./io.ts";
import { initOption, integer, nameList, openInterval, percentileList, positive } from "./options.ts";
import { PPL_VERSION } from "./version.ts";

/**
 * Builds the command-line program; `done` receives each command's exit code. Commands are imported
 * when they run, so that --help and option errors answer without loading the model libraries.
 */
export function buildProgram(done: (code: ExitCodeValue) => void): Command {
  const run = (action: () => Promise<ExitCodeValue> | ExitCodeValue) => async (): Promise<void> => {
    try {
      done(await action());
    } catch (e) {
      done(reportError(e));
    }
  };

  const program = new Command("ppl")
    .description("Sample Bayesian models written in TypeScript, summarize and report the draws.")
    .version(PPL_VERSION, "--version", "print the version of ppl")
    .exitOverride()
    .configureHelp({ showGlobalOptions: false })
    // Commander's own messages ("error: unknown option …") get the same prefix as ours, and stay
    // one line like ours (its suggestions, "(Did you mean …?)", come on a line of their own).
    // Its help shown for an error (`ppl` with no command) goes to writeErr, dropped here: main()
    // says it in one line instead.
    .configureOutput({ outputError: (text) => process.stderr.write(commanderErrorLine(text)), writeErr: () => undefined });

  program
    .command("sample")
    .description("Sample a model with NUTS; writes DIR/chain-N.csv (Stan CSV) and DIR/summary.json and prints the summary.")
    .argument("<model>", "TypeScript file whose default export is a model")
    .option("--data <file>", "data file in Stan's JSON format")
    .option("--chains <n>", "number of chains", integer(1, 65536), 4)
    .option("--threads <n>", "threads the CPU backend samples the chains on (default: one per core, at most --chains); every chain draws the same whatever the number", integer(1, 1024))
    .option("--warmup <n>", "warmup iterations per chain", integer(0, 2 ** 31), 1000)
    .option("--draws <n>", "draws per chain after warmup", integer(1, 2 ** 31), 1000)
    .option("--seed <n>", "random seed (default: random, written to the CSV header)", integer(0))
    .option("--first-chain <k>", "0-based id of the first chain: chains, their files (chain-(K+1).csv …) and random streams are numbered from K, so runs of disjoint chain ranges together equal one run", integer(0, 2 ** 31))
    .addOption(new Option("--backend <name>", "where the log density runs").choices(["auto", "cpu", "vulkan"]).default("auto"))
    .option("--device <n|list|all>", "Vulkan device index, a list (0,1) or all: the chains split over the devices, one manager each (see `ppl devices`)", deviceSelection)
    .addOption(new Option("--dtype <type>", "float type of the density (default: f64 on the CPU)").choices(["f32", "f64"]))
    .addOption(new Option("--metric <form>", "metric (mass matrix) form").choices(["diag", "dense"]).default("diag"))
    .addOption(
      new Option("--gpu-shape <shape>", "how chains map onto the GPU: thread or workgroup per chain, or the whole device per gradient (default: from the data size)")
        .choices(["auto", "thread", "workgroup", "device"]).default("auto"),
    )
    .addOption(
      new Option("--data-precision <p>", "how the GPU stores large float data (≥ 4096 elements): exact, or f16 (16-bit floats computed in the dtype: half the bytes to read, each element rounded, relative error ≤ 2^-11; needs a device with 16-bit storage)")
        .choices(["exact", "f16"]).default("exact"),
    )
    .option("--adapt-delta <x>", "target acceptance statistic, in (0, 1)", openInterval(0, 1), 0.8)
    .option("--max-depth <n>", "maximum NUTS tree depth", integer(1, 30), 10)
    .option("--init <r>", "a number r: initial values uniform in (-r, r) on the unconstrained scale; or a JSON file of constrained initial values in Stan's format (one object shared, or an array of one per chain); or `pathfinder`: each chain starts at a draw of multi-path Pathfinder (./pathfinder for a file of that name)", initOption, 2)
    .option("--save-warmup", "also write the warmup draws to the CSV files (before the adaptation block, as CmdStan does)", false)
    .option("--thin <n>", "keep every n-th draw (warmup draws too, with --save-warmup)", integer(1, 2 ** 31), 1)
    .addOption(new Option("--algorithm <name>", "nuts, hmc (static HMC with --steps leapfrog steps), chees (ChEES-HMC: many chains sharing one step size and trajectory length adapted across them, in lockstep), or meads (generalized HMC with persistent momentum, step size, metric and damping adapted per fold of chains; chains a multiple of 4); on a GPU every method but nuts runs its transitions on the host, each round of all chains' gradients one batched evaluation on the device").choices(["nuts", "hmc", "chees", "meads"]).default("nuts"))
    .option("--superchains <k>", "start the chains in k groups, each from one initial point, and report nested R-hat over the groups (k must divide --chains)", integer(2, 2 ** 31))
    .option("--steps <n>", "leapfrog steps per transition of --algorithm hmc (default 10)", integer(1, 2 ** 31))
    .option("--stepsize <x>", "initial step size (warmup adapts it; with --warmup 0 it is the step size)", positive, 1)
    .option("--inv-metric <file>", "initial inverse metric in CmdStan's JSON ({\"inv_metric\": [...]}: a vector for diag, rows for dense)")
    .option("--refresh <n>", "progress every n iterations (0: none); off a terminal, one line per update", integer(0, 2 ** 31))
    .option("--output <dir>", "output directory", "output")
    .addOption(
      new Option("--output-format <f>", "chains: a Stan CSV file per chain (DIR/chain-N.csv); single: one Stan CSV file of every chain, DIR/draws.csv, each row led by its chain in a chain__ column, written in blocks; auto: single beyond 256 chains")
        .choices(["auto", "chains", "single"]).default("auto"),
    )
    .option("--target-ess <n>", "sample until every shown parameter's bulk ESS reaches n and its R-hat (nested R-hat with --superchains) is below 1.01, checked in blocks, or until --max-draws; the files then end there", integer(1, 2 ** 31))
    .option("--max-draws <n>", "the cap on draws per chain with --target-ess (default: --draws)", integer(1, 2 ** 31))
    .option("--quiet", "no progress or informational lines on stderr", false)
    .option("--strict", "exit with code 1 when the diagnostics give warnings", false)
    .option("--typecheck", "type-check the model file first, as `ppl check` does; a type error stops the run (exit 3)", false)
    .option("--checkpoint-every <n>", "save the sampler's whole state to DIR/checkpoint.json every n iterations (100) or seconds (60s), and at the end of warmup, for --resume (the CPU sampler in one thread, or --backend vulkan, where a checkpoint waits for the end of the GPU's block of iterations)")
    .option("--resume", "continue the run in --output from its checkpoint.json, with the options it was started with: the files end as the uninterrupted run's, bit for bit", false)
    .option("--log-lik", "also write log_lik columns: the pointwise log-likelihood of every observed element (for `ppl loo`)", false)
    .option("--predictive", "also write predictive draws of every observed variable: y_rep.1 … for an observe of data field y", false)
    .option("--prior", "draw from the prior without MCMC (exact draws of each parameter's prior; observations replaced by predictive draws)", false)
    .option("-v, --variables <names>", "comma-separated variables for the printed summary, as Stan selects them: a name selects all its elements (theta), theta[2] one element (default: all but the per-observation log_lik and <field>_rep, which the CSV files always hold)", nameList)
    .addHelpText("after", EXIT_CODES_HELP)
    .action((model: string, opts: SampleCommandOptions) => run(async () => (await import("./commands/sample.ts")).sampleCommand(model, opts, processIO))());

  program
    .command("generate")
    .description("Run a model's generated quantities and predictive draws over the draws of an existing fit, as CmdStan's generate_quantities; writes DIR/chain-N.csv and DIR/summary.json.")
    .argument("<model>", "TypeScript file whose default export is a model")
    .requiredOption("--fit <dir>", "output directory of `ppl sample` (or of CmdStan) holding the draws")
    .option("--data <file>", "data file in Stan's JSON format")
    .option("--output <dir>", "output directory", "generated")
    .option("--seed <n>", "random seed of the generated quantities (default: the fit's, so a run's own generated columns come out again)", integer(0))
    .option("--log-lik", "also write log_lik columns", false)
    .option("--force", "run over a fit that sampled other data than --data (its header's data_hash differs): a warning instead of a usage error, for predictions on new data", false)
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", EXIT_CODES_HELP)
    .action((model: string, opts: GenerateCommandOptions) => run(async () => (await import("./commands/generate.ts")).generateCommand(model, opts, processIO))());

  program
    .command("summary")
    .description("Summarize Stan CSV files (ours or CmdStan's): mean, MCSE, sd, MAD, quantiles, ESS, R-hat, sampler diagnostics; of optimize.csv, laplace.csv, variational.csv or pathfinder.csv: the estimate, or the draws' mean, sd, MAD and quantiles (no R-hat or ESS for approximate draws).")
    .argument("<files...>", "Stan CSV files, or directories holding them")
    .option("--json", "print JSON keyed by parameter name", false)
    .option("--percentiles <list>", "comma-separated percentiles for the quantile columns, as stansummary's (default 5,50,95)", percentileList)
    .option("-v, --variables <names>", "comma-separated variables to summarize: a name selects all its elements (theta), theta[2] one element (default: all)", nameList)
    .option("--superchains <k>", "nested R-hat over k contiguous groups of chains (default: the superchains of `ppl sample --superchains`, from the files' header)", integer(2, 2 ** 31))
    .addHelpText("after", EXIT_CODES_HELP)
    .action((files: string[], opts: { json: boolean; percentiles?: number[]; variables?: string[]; superchains?: number }) => run(async () => (await import("./commands/summary.ts")).summaryCommand(files, opts, processIO))());

  program
    .command("report")
    .description("Write a self-contained HTML report (summary, warnings, trace, rank, pair, energy and autocorrelation plots; the posterior predictive check, LOO-PIT and Pareto k of runs with --predictive and --log-lik; prior against posterior with --prior).")
    .argument("<dirs...>", "output directory of `ppl sample` (or a directory of Stan CSV files); several: chain groups of one run (--first-chain), merged")
    .option("-o, --output <file>", "HTML file to write", "report.html")
    .option("--pairs <names>", "comma-separated variables for the pair plot, as --variables selects them (tau,theta: tau and every theta[j]); at most six (default: the first six)", nameList)
    .option("-v, --variables <names>", "comma-separated variables to plot and tabulate: a name selects all its elements (theta), theta[2] one element (default: all but the per-observation log_lik and <field>_rep, whose predictive check and leave-one-out panels are drawn instead)", nameList)
    .option("--prior <dir>", "output directory of `ppl sample --prior`: the prior and posterior density of each parameter on one axis")
    .option("--log-scale <names>", "comma-separated parameters drawn on a log axis (density, trace, prior vs posterior), by --variables' rules; 'auto' adds every parameter whose draws are all positive with a 95%/5% quantile ratio above 10", nameList)
    .option("--data <file>", "data file of the observed values for the predictive check (default: the one the run's header names)")
    .addHelpText("after", EXIT_CODES_HELP)
    .action((dirs: string[], opts: { output: string; pairs?: string[]; variables?: string[]; prior?: string; logScale?: string[]; data?: string }) => run(async () => (await import("./commands/report.ts")).reportCommand(dirs, opts, processIO))());

  program
    .command("merge")
    .description("Merge the chain groups of one run (`ppl sample --first-chain K` in several processes or machines) into one directory: checks that model, data, seed and settings agree, copies the chain files, writes summary.json.")
    .argument("<dirs...>", "output directories of the chain groups")
    .requiredOption("-o, --output <dir>", "directory of the merged run")
    .addHelpText("after", EXIT_CODES_HELP)
    .action((dirs: string[], opts: { output: string }) => run(async () => (await import("./commands/merge.ts")).mergeCommand(dirs, opts, processIO))());

  program
    .command("loo")
    .description("PSIS-LOO cross-validation from the log_lik columns of a run (`ppl sample --log-lik`): elpd_loo, p_loo, looic, Pareto k; or compare runs.")
    .argument("<dirs...>", "output directory of `ppl sample --log-lik` (several with --compare)")
    .option("--compare", "compare the runs in the directories (models of the same data), best first, as loo_compare", false)
    .option("--json", "print JSON", false)
    .option("--force", "with --compare, compare runs whose recorded data differ (a warning instead of a usage error)", false)
    .addHelpText("after", EXIT_CODES_HELP)
    .action((dirs: string[], opts: { compare: boolean; json: boolean; force: boolean }) => run(async () => (await import("./commands/loo.ts")).looCommand(dirs, opts, processIO))());

  program
    .command("export")
    .description("Write a run as ArviZ's InferenceData in netCDF4 (posterior, sample_stats, log_likelihood, posterior_predictive, prior, observed_data, constant_data; the predictive draws and log-likelihood named after the observed variable): arviz.from_netcdf(FILE).")
    .argument("<dir>", "output directory of `ppl sample`, `ppl optimize`, `laplace`, `variational` or `pathfinder` (or a directory of Stan CSV files, or one file)")
    .requiredOption("-o, --output <file>", "netCDF file to write (.nc)")
    .option("--prior <dir>", "output directory of `ppl sample --prior`: the prior and prior_predictive groups")
    .option("--data <file>", "data file for observed_data and constant_data (default: the one the run's header names)")
    .option("-v, --variables <names>", "comma-separated variables to write, whole (theta, log_lik, y_rep; default: all); sample_stats and the data are always written", nameList)
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", EXIT_CODES_HELP)
    .action((dir: string, opts: { output: string; prior?: string; data?: string; quiet: boolean; variables?: string[] }) => run(async () => (await import("./commands/export.ts")).exportCommand(dir, opts, processIO))());

  addApproximationCommands(program, run);
  addProjectCommands(program, run, EXIT_CODES_HELP);

  program
    .command("devices")
    .description("List the Vulkan devices: type, memory, f64 support and limits (or why there are none).")
    .option("--json", "print the listing as JSON", false)
    .action((opts: { json: boolean }) => run(async () => (await import("./commands/devices.ts")).devicesCommand(opts, processIO))());

  return program;
}

const EXIT_CODES_HELP = `
Exit codes: 0 success; 1 diagnostics failed with --strict; 2 usage error; 3 model or data error;
4 device error, or a write the disk refused (full, failing); 70 internal error; 129, 130, 143 stopped by SIGHUP, SIGINT (Ctrl-C), SIGTERM (the
CSV files hold every draw made so far); 141 stdout closed early.`;

/** A message of commander's as one line: "ppl: " for "error: ", lines joined, the pointer to --help at the end. */
export function commanderErrorLine(text: string): string {
  const joined = text.replace(/^error: /, "").split("\n").map((l) => l.trim()).filter((l) => l !== "").join(" ");
  return `ppl: ${joined} (add --help for the options)\n`;
}

/** Prints an error as one line and returns its exit code; anything that is not a CliError is a bug. */
export function reportError(e: unknown): ExitCodeValue {
  if (e instanceof CliError) {
    process.stderr.write(`ppl: ${oneLine(e.message)}\n`);
    // The error behind the message, with its stack, for a model that fails somewhere deep.
    if (process.env["PPL_DEBUG"] && e.cause instanceof Error) process.stderr.write(`${e.cause.stack ?? e.cause.message}\n`);
    return e.exitCode;
  }
  // A write the disk refused (full, failing) is the disk's state, not a bug: exit 4, the file named.
  const refused = writeFailureError(e);
  if (refused !== null) return reportError(refused);
  const message = e instanceof Error ? e.message : String(e);
  process.stderr.write(`ppl: internal error: ${oneLine(message)}\n`);
  if (process.env["PPL_DEBUG"]) process.stderr.write(`${e instanceof Error ? e.stack : ""}\n`);
  else process.stderr.write("ppl: this is a bug in ppl, not in your input; run again with PPL_DEBUG=1 for the stack trace and report it\n");
  return ExitCode.internal;
}

// A message quotes what the user gave (a data key, a path), which may hold a line break; the
// message stays one line.
function oneLine(message: string): string {
  return message.replace(/\r?\n|\r/g, "\\n");
}

/** Runs the program on argv (without node and the script) and returns the exit code. */
export async function main(argv: readonly string[]): Promise<ExitCodeValue> {
  let code: ExitCodeValue = ExitCode.ok;
  const program = buildProgram((c) => {
    code = c;
  });
  // `ppl help NAME` for a NAME that is no command would print the whole help on stderr; it is a
  // usage error of one line like the others.
  const names = program.commands.map((c) => c.name()).join(", ");
  const asked = argv[0] === "help" ? argv[1] : undefined;
  if (asked !== undefined && !program.commands.some((c) => c.name() === asked)) {
    process.stderr.write(`ppl: help: unknown command '${oneLine(asked)}'; the commands are ${names} (\`ppl help COMMAND\` or \`ppl COMMAND --help\`)\n`);
    return ExitCode.usage;
  }
  try {
    await program.parseAsync([...argv], { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.exitCode === 0) return ExitCode.ok;
      if (e.code === "commander.help") process.stderr.write(`ppl: give a command: ${names} (\`ppl --help\` describes them)\n`);
      return ExitCode.usage;
    }
    return reportError(e);
  }
  return code;
}

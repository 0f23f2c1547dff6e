/**
 * The commands that evaluate a model's density outside sampling, added to the program: the
 * approximations (`ppl optimize`, `ppl laplace`, `ppl variational`) and the density checks (`ppl diagnose`,
 * `ppl log-prob`); their modules load when they run, as every command's do.
 */
import { Option, type Command } from "commander";
import type { ExitCodeValue } from "./exit-codes.ts";
import type { DiagnoseCommandOptions } from "./commands/diagnose.ts";
import type { LaplaceCommandOptions } from "./commands/laplace.ts";
import type { LogProbCommandOptions } from "./commands/log-prob.ts";
import type { OptimizeCommandOptions } from "./commands/optimize.ts";
import type { VariationalCommandOptions } from "./commands/variational.ts";
import type { PathfinderCommandOptions } from "./commands/pathfinder.ts";
import { processIO } from "./io.ts";
import { deviceSelection } from "./device-option.ts";
import { initOption, integer, nonNegative, positive } from "./options.ts";

type Runner = (action: () => Promise<ExitCodeValue> | ExitCodeValue) => () => Promise<void>;

const EXIT_CODES = `
Exit codes: 0 success; 2 usage error; 3 model or data error (a density not finite at the initial
point included); 5 did not converge (optimize: --iter reached or the line search made no progress,
optimize.csv holds the last iterate; laplace: the Hessian at the mode is not negative definite, no
laplace.csv is written; pathfinder: every path failed, no pathfinder.csv is written); 70 internal error.`;

/** Adds `optimize`, `laplace`, `pathfinder`, `variational`, `diagnose` and `log-prob` to the program. */
export function addApproximationCommands(program: Command, run: Runner): void {
  program
    .command("optimize")
    .description("Find the posterior mode (L-BFGS by default) as CmdStan's optimize; writes DIR/optimize.csv (lp__ and the constrained values) and prints the estimates.")
    .argument("<model>", "TypeScript or Stan file of the model")
    .option("--data <file>", "data file in Stan's JSON format")
    .addOption(new Option("--algorithm <name>", "lbfgs, bfgs (dense inverse Hessian) or newton (finite-difference Hessian)").choices(["lbfgs", "bfgs", "newton"]).default("lbfgs"))
    .option("--jacobian", "include the log-Jacobian of the constraints: the MAP on the unconstrained scale (default: the mode of the constrained density, as CmdStan)", false)
    .option("--iter <n>", "most iterations", integer(1, 2 ** 31), 2000)
    .option("--tol-obj <x>", "converged when the objective changes by less than this", nonNegative, 1e-12)
    .option("--tol-rel-obj <x>", "converged when its relative change is below this times machine epsilon", nonNegative, 1e4)
    .option("--tol-grad <x>", "converged when the gradient's norm is below this", nonNegative, 1e-8)
    .option("--tol-rel-grad <x>", "converged when the gradient scaled by the inverse Hessian estimate is below this times machine epsilon", nonNegative, 1e7)
    .option("--tol-param <x>", "converged when the unconstrained parameters move by less than this", nonNegative, 1e-8)
    .option("--history-size <n>", "L-BFGS's number of correction pairs", integer(1, 1000), 5)
    .option("--init-alpha <x>", "first step length of the line search", positive, 0.001)
    .option("--init <r>", "a number r: the initial point uniform in (-r, r) on the unconstrained scale; or a JSON file of constrained initial values", initOption, 2)
    .option("--seed <n>", "random seed of the initial point and generated quantities", integer(0))
    .option("--output <dir>", "output directory", "output")
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", EXIT_CODES)
    .action((model: string, opts: OptimizeCommandOptions) => run(async () => (await import("./commands/optimize.ts")).optimizeCommand(model, opts, processIO))());

  program
    .command("laplace")
    .description("Draw from the normal approximation at the mode (Hessian by finite differences of the gradient) as CmdStan's laplace; writes DIR/laplace.csv with log_p__ and log_g__.")
    .argument("<model>", "TypeScript or Stan file of the model")
    .option("--data <file>", "data file in Stan's JSON format")
    .option("--mode <file>", "the mode: optimize.csv of `ppl optimize` (or CmdStan), or a JSON file of constrained values (default: found by L-BFGS)")
    .option("--draws <n>", "number of draws", integer(1, 2 ** 31), 1000)
    .option("--no-jacobian", "approximate the density without the log-Jacobian (the mode of `ppl optimize` without --jacobian); default: with it, as CmdStan")
    .option("--init <r>", "initial point of the mode search, as for optimize", initOption, 2)
    .addOption(new Option("--backend <name>", "where the batched evaluations run: auto (a GPU when one is usable), cpu, or vulkan").choices(["auto", "cpu", "vulkan"]).default("auto"))
    .option("--device <n>", "Vulkan device index (see `ppl devices`)", deviceSelection)
    .addOption(new Option("--dtype <type>", "float type of the GPU's density (default f64)").choices(["f32", "f64"]))
    .option("--seed <n>", "random seed", integer(0))
    .option("--output <dir>", "output directory", "output")
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", EXIT_CODES)
    .action((model: string, opts: LaplaceCommandOptions) => run(async () => (await import("./commands/laplace.ts")).laplaceCommand(model, opts, processIO))());

  program
    .command("pathfinder")
    .description("Approximate the posterior by Pathfinder as CmdStan's pathfinder (L-BFGS paths, a normal approximation at each iterate, the best by ELBO, PSIS importance resampling over paths); writes DIR/pathfinder.csv with lp_approx__ and lp__.")
    .argument("<model>", "TypeScript or Stan file of the model")
    .option("--data <file>", "data file in Stan's JSON format")
    .option("--num-paths <n>", "independent paths", integer(1, 4096), 4)
    .option("--draws <n>", "draws per path, and draws after resampling", integer(1, 2 ** 24 - 1), 1000)
    .option("--psis-resample", "resample the pooled draws by their Pareto-smoothed importance weights", true)
    .option("--no-psis-resample", "write every path's draws, not resampled")
    .option("--num-elbo-draws <n>", "draws for each ELBO estimate", integer(1, 2 ** 24 - 1), 25)
    .option("--history-size <n>", "L-BFGS's number of correction pairs", integer(1, 1000), 5)
    .option("--max-lbfgs-iters <n>", "most L-BFGS iterations of a path", integer(1, 2 ** 31), 1000)
    .option("--init <r>", "a number r: each path starts uniform in (-r, r) on the unconstrained scale; or a JSON file of constrained initial values (one object shared, or one per path)", initOption, 2)
    .addOption(new Option("--backend <name>", "where the batched evaluations run: auto (a GPU when one is usable), cpu, or vulkan").choices(["auto", "cpu", "vulkan"]).default("auto"))
    .option("--device <n>", "Vulkan device index (see `ppl devices`)", deviceSelection)
    .addOption(new Option("--dtype <type>", "float type of the GPU's density (default f64)").choices(["f32", "f64"]))
    .option("--seed <n>", "random seed", integer(0))
    .option("--output <dir>", "output directory", "output")
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", EXIT_CODES)
    .action((model: string, opts: PathfinderCommandOptions) => run(async () => (await import("./commands/pathfinder.ts")).pathfinderCommand(model, opts, processIO))());

  program
    .command("variational")
    .description("Fit a Gaussian approximation to the posterior by ADVI (meanfield or fullrank, on the unconstrained scale) as CmdStan's variational; writes DIR/variational.csv (lp__, log_p__, log_g__, the approximation's mean as the first row, then the draws).")
    .argument("<model>", "TypeScript or Stan file of the model")
    .option("--data <file>", "data file in Stan's JSON format")
    .addOption(new Option("--algorithm <name>", "meanfield (diagonal covariance) or fullrank (dense, by its Cholesky factor)").choices(["meanfield", "fullrank"]).default("meanfield"))
    .option("--iter <n>", "most iterations of stochastic gradient ascent", integer(1, 2 ** 31), 10000)
    .option("--grad-samples <n>", "draws per Monte Carlo ELBO gradient", integer(1, 2 ** 31), 1)
    .option("--elbo-samples <n>", "draws per ELBO estimate", integer(1, 2 ** 31), 100)
    .option("--eta <x>", "step-size scale (used as given with --no-adapt-engaged)", positive, 1)
    .option("--adapt-engaged", "choose eta by trying 100, 10, 1, 0.1, 0.01 for --adapt-iter iterations each (default)", true)
    .option("--no-adapt-engaged", "use --eta as given")
    .option("--adapt-iter <n>", "iterations per eta tried by the adaptation", integer(1, 2 ** 31), 50)
    .option("--tol-rel-obj <x>", "converged when the mean or median relative ELBO change falls below this", positive, 0.01)
    .option("--eval-elbo <n>", "iterations between ELBO estimates (and convergence checks)", integer(1, 2 ** 31), 100)
    .option("--draws <n>", "draws from the approximation written after its mean (CmdStan's output_samples)", integer(1, 2 ** 31), 1000)
    .option("--init <r>", "initial mean: uniform in (-r, r) on the unconstrained scale, or a JSON file of constrained values", initOption, 2)
    .addOption(new Option("--backend <name>", "where the batched evaluations run: auto (a GPU when one is usable), cpu, or vulkan").choices(["auto", "cpu", "vulkan"]).default("auto"))
    .option("--device <n>", "Vulkan device index (see `ppl devices`)", deviceSelection)
    .addOption(new Option("--dtype <type>", "float type of the GPU's density (default f64)").choices(["f32", "f64"]))
    .option("--seed <n>", "random seed", integer(0))
    .option("-o, --output <dir>", "output directory", "output")
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", `
Exit codes: 0 converged; 2 usage error; 3 model or data error (a density not finite at the initial
point included); 5 did not converge: --iter reached before the relative ELBO test passed
(variational.csv holds draws from the last iterate, marked as not converged), or the ELBO could not
be estimated or improved by any step size (no variational.csv is written); 70 internal error.`)
    .action((model: string, opts: VariationalCommandOptions) => run(async () => (await import("./commands/variational.ts")).variationalCommand(model, opts, processIO))());

  program
    .command("diagnose")
    .description("Check the model's gradient against finite differences at an initial point, as CmdStan's diagnose; exits 1 when a coordinate's error exceeds --error.")
    .argument("<model>", "TypeScript or Stan file of the model")
    .option("--data <file>", "data file in Stan's JSON format")
    .option("--epsilon <x>", "finite-difference step", positive, 1e-6)
    .option("--error <x>", "largest |gradient - finite difference| that passes", positive, 1e-6)
    .option("--init <r>", "the point: uniform in (-r, r) on the unconstrained scale, or a JSON file of constrained values", initOption, 2)
    .option("--seed <n>", "random seed of the point", integer(0))
    .addHelpText("after", "\nExit codes: 0 every coordinate within --error; 1 some are not; 2 usage error; 3 model or data error; 70 internal error.")
    .action((model: string, opts: DiagnoseCommandOptions) => run(async () => (await import("./commands/diagnose.ts")).diagnoseCommand(model, opts, processIO))());

  program
    .command("log-prob")
    .description("The log density and its gradient (unconstrained scale) at given constrained values, as CmdStan's log_prob; writes DIR/log_prob.csv.")
    .argument("<model>", "TypeScript or Stan file of the model")
    .option("--data <file>", "data file in Stan's JSON format")
    .requiredOption("--params <file>", "constrained values: a JSON object, or a Stan CSV file (one point per row)")
    .option("--no-jacobian", "leave out the log-Jacobian of the constraints (default: included, as CmdStan)")
    .option("--output <dir>", "output directory", "output")
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", "\nExit codes: 0 success; 2 usage error (a params file that does not fit the model); 3 model or data error; 70 internal error.")
    .action((model: string, opts: LogProbCommandOptions) => run(async () => (await import("./commands/log-prob.ts")).logProbCommand(model, opts, processIO))());
}

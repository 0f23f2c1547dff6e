/** The commands of a model project: `ppl check` (type-check and build a model) and `ppl init` (scaffold one). */
import type { Command } from "commander";
import type { CheckCommandOptions } from "./commands/check.ts";
import type { InitCommandOptions } from "./commands/init.ts";
import type { ExitCodeValue } from "./exit-codes.ts";
import { processIO } from "./io.ts";

type Run = (action: () => Promise<ExitCodeValue> | ExitCodeValue) => () => Promise<void>;

/** Registers `check` and `init` on the program; `run` turns a command's result or error into its exit code. */
export function addProjectCommands(program: Command, run: Run, exitCodesHelp: string): void {
  program
    .command("check")
    .description("Type-check a model file with the TypeScript compiler against the installed @ppl/ppl and @ppl/tensor (errors as file:line:column), then build the model with the data as `ppl sample` would.")
    .argument("<model>", "model file (.ts; a .stan program is checked by its own compiler)")
    .option("--data <file>", "JSON data file: build the model with it, reporting data and model errors as `ppl sample` does")
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", exitCodesHelp)
    .action((model: string, opts: CheckCommandOptions) => run(async () => (await import("./commands/check.ts")).checkCommand(model, opts, processIO))());

  program
    .command("init")
    .description("Scaffold a model project in DIR: model.ts, data.json, a tsconfig.json that points at this ppl's declarations (the editor type-checks the model with no install) and a package.json with check and sample scripts.")
    .argument("<dir>", "directory to create (or an empty one)")
    .option("--force", "add the files to a directory that holds other files (never over a file of the same name)", false)
    .option("--quiet", "no informational lines on stderr", false)
    .addHelpText("after", exitCodesHelp)
    .action((dir: string, opts: InitCommandOptions) => run(async () => (await import("./commands/init.ts")).initCommand(dir, opts, processIO))());
}

/**
 * `ppl check MODEL [--data FILE]`: type-checks a model file with the TypeScript compiler against
 * the declarations of the packages ppl runs on (own-declarations.ts), printing each error as
 * file:line:column; then loads the model and builds it with the data as `ppl sample` does, so
 * that a data or model error reads as it would there.
 */
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";
import ts from "typescript";
import { compileWithData } from "../compile.ts";
import { ExitCode, modelError, type ExitCodeValue } from "../exit-codes.ts";
import type { CommandIO } from "../io.ts";
import { loadData } from "../load-data.ts";
import { loadModel } from "../load-model.ts";
import { modelCompilerOptions } from "../own-declarations.ts";

/** Options of `ppl check`. */
export interface CheckCommandOptions {
  readonly data?: string;
  readonly quiet?: boolean;
}

/** Runs `ppl check`: 0 when the model type-checks and builds (with the data given), 3 with the errors on stderr otherwise. */
export async function checkCommand(modelPath: string, opts: CheckCommandOptions, io: CommandIO): Promise<ExitCodeValue> {
  const info = (line: string): void => {
    if (!opts.quiet) io.stderr.write(line + "\n");
  };
  // A Stan program has its own checker, run when it is loaded below.
  if (!modelPath.endsWith(".stan")) {
    const errors = await typeErrors(modelPath);
    if (errors.length > 0) {
      for (const e of errors) io.stderr.write(e + "\n");
      io.stderr.write(`model file '${modelPath}': ${errors.length} type error${errors.length === 1 ? "" : "s"}; fix ${errors.length === 1 ? "it" : "them"} (the editor shows them with the tsconfig.json of \`ppl init\`)\n`);
      return ExitCode.modelOrData;
    }
    info(`${modelPath}: type-checks against @ppl/ppl and @ppl/tensor`);
  }
  const model = await loadModel(modelPath);
  const declaresData = Object.keys(model.data).length > 0;
  if (opts.data === undefined && declaresData) {
    info(`model '${model.name}' declares data (${Object.keys(model.data).join(", ")}); add --data FILE to check them and build the model`);
    return ExitCode.ok;
  }
  compileWithData(model, loadData(opts.data), modelPath, opts.data, (line) => io.stderr.write(line + "\n"));
  info(`model '${model.name}' builds${opts.data !== undefined ? ` with the data of '${opts.data}'` : ""}`);
  return ExitCode.ok;
}

/** `ppl sample --typecheck`: the model's type errors on stderr and a model error (exit 3) when it has any; nothing for a .stan program. */
export async function typecheckBeforeRun(modelPath: string, io: CommandIO): Promise<void> {
  if (modelPath.endsWith(".stan")) return;
  const errors = await typeErrors(modelPath);
  if (errors.length === 0) return;
  for (const e of errors) io.stderr.write(e + "\n");
  throw modelError(`--typecheck: model file '${modelPath}' has ${errors.length} type error${errors.length === 1 ? "" : "s"} (above); fix ${errors.length === 1 ? "it" : "them"}, or drop --typecheck to run it as it is`);
}

/** The type errors of a model file (and of the files of its own that it imports), one `file:line:column: error TSn: text` line each. */
export async function typeErrors(modelPath: string): Promise<string[]> {
  const abs = resolve(modelPath);
  try {
    readFileSync(abs);
  } catch {
    // loadModel says what is wrong with the path.
    await loadModel(modelPath);
  }
  const json = modelCompilerOptions();
  const { options, errors } = ts.convertCompilerOptionsFromJson(json, process.cwd());
  if (errors.length > 0) throw modelError(`ppl's compiler options for model files are invalid: ${ts.flattenDiagnosticMessageText(errors[0]!.messageText, " ")}`);
  const program = ts.createProgram([abs], options);
  const diagnostics = ts.getPreEmitDiagnostics(program).filter((d) => d.category === ts.DiagnosticCategory.Error);
  const moved = await movedNames();
  return diagnostics.map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, " ");
    const hint = movedHint(d.code, text, moved);
    if (d.file === undefined || d.start === undefined) return `error TS${d.code}: ${text}${hint}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const file = shownPath(d.file.fileName, abs, modelPath);
    return `${file}:${line + 1}:${character + 1}: error TS${d.code}: ${text}${hint}`;
  });
}

// The model file as the user named it; its own imports relative to the working directory when inside it.
function shownPath(file: string, abs: string, given: string): string {
  if (resolve(file) === abs) return given;
  const rel = relative(process.cwd(), file);
  return rel.startsWith("..") ? file : rel;
}

// The names that the other package exports, for an import from the wrong one.
async function movedNames(): Promise<{ readonly ppl: ReadonlySet<string>; readonly tensor: ReadonlySet<string> }> {
  const [ppl, tensor] = await Promise.all([import("@ppl/ppl"), import("@ppl/tensor")]);
  return { ppl: new Set(Object.keys(ppl)), tensor: new Set(Object.keys(tensor)) };
}

// TS2305/TS2724: "Module '"@ppl/ppl"' has no exported member 'diagMatrix'": where it is exported.
function movedHint(code: number, text: string, moved: { readonly ppl: ReadonlySet<string>; readonly tensor: ReadonlySet<string> }): string {
  if (code !== 2305 && code !== 2724) return "";
  const m = /Module '"(@ppl\/(?:ppl|tensor))"' has no exported member '([^']+)'/.exec(text);
  if (m === null) return "";
  const [, from, name] = m;
  if (from === "@ppl/ppl" && moved.tensor.has(name!)) return ` ('${name}' is exported by @ppl/tensor: import { ${name} } from "@ppl/tensor")`;
  if (from === "@ppl/tensor" && moved.ppl.has(name!)) return ` ('${name}' is exported by @ppl/ppl: import { ${name} } from "@ppl/ppl")`;
  return "";
}

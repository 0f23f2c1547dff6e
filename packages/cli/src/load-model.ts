import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { isModel, type Model } from "@ppl/ppl";
import { modelError, usageError } from "./exit-codes.ts";
import { bundleModel } from "./model-bundle.ts";
import { describeFsError } from "./read-file.ts";
import { inModelFile, syntaxErrorText } from "./source-location.ts";

/**
 * Imports a model file (TypeScript or JavaScript, bundled by esbuild: model-bundle.ts) and returns
 * its default export. A missing file is a usage error; a file that fails to load or does not default-export
 * a model made by model({ name, data, build }) is a model error.
 */
export async function loadModel(path: string): Promise<Model> {
  const abs = resolve(path);
  let isFile = false;
  try {
    isFile = statSync(abs).isFile();
  } catch (e) {
    throw usageError(`model file '${path}' ${describeFsError(e)}; check the path`);
  }
  if (!isFile) throw usageError(`model file '${path}' is not a file; give the path of a .ts file that default-exports a model`);
  if (abs.endsWith(".stan")) return await loadStan(path, abs);

  let ns: Record<string, unknown>;
  try {
    const url = await bundleModel(abs);
    // Frames of the model's code then name its own file and lines (the bundle carries a source map).
    process.setSourceMapsEnabled(true);
    ns = (await import(url)) as Record<string, unknown>;
  } catch (e) {
    throw modelError(inModelFile(path, e, `failed to load: ${syntaxErrorText(e) ?? firstLine(e)}`), e);
  }
  const found = defaultExport(ns);
  if (isModel(found)) return found;
  const what = found === undefined ? "has no default export" : `default-exports ${describe(found)}`;
  throw modelError(
    `model file '${path}' ${what}; it must end with \`export default model({ name, data, build })\` (model from the ppl package)`,
  );
}

// A Stan program, compiled by @ppl/stan; its errors name the file, line and column, as Stan's do.
// The compiler is imported here, not at the top, so that a TypeScript model's run does not load it.
async function loadStan(path: string, abs: string): Promise<Model> {
  const { compileStan, StanError } = await import("@ppl/stan");
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch (e) {
    throw usageError(`model file '${path}' ${describeFsError(e)}; check the path`);
  }
  try {
    return compileStan(text, path);
  } catch (e) {
    // One line, as every error of ppl: file:line:column, what is wrong and what was expected.
    if (e instanceof StanError) throw modelError(e.message, e);
    throw e;
  }
}

// A model written as CommonJS (module.exports = …) has its exports object as the default export.
function defaultExport(ns: Record<string, unknown>): unknown {
  const d = ns["default"];
  if (isModel(d)) return d;
  if (typeof d === "object" && d !== null && "default" in d) {
    const inner = (d as Record<string, unknown>)["default"];
    if (inner !== undefined) return inner;
  }
  if (typeof d === "object" && d !== null && Object.keys(d).length === 0) return undefined;
  return d;
}

function describe(x: unknown): string {
  if (x === null) return "null";
  if (typeof x === "function") return "a function";
  if (typeof x === "object") return "an object that is not a model";
  return `a ${typeof x}`;
}

/** The first line of an error's message (esbuild's and Node's errors can run over many lines). */
export function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  return text.split("\n").find((l) => l.trim() !== "")?.trim() ?? text;
}

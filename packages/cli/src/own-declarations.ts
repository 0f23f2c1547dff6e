/**
 * The compiler options a model file is type-checked with: strict TypeScript, with the imports of
 * this toolkit's packages (`@ppl/ppl`, `@ppl/tensor` and their subpaths) mapped to the declarations
 * of the copies this CLI runs on, so that a model anywhere checks against what it will run with,
 * with no node_modules of its own. `ppl check` compiles with them and `ppl init` writes them into a
 * project's tsconfig.json: one description of both.
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The packages a model imports whose declarations are mapped. */
const MODEL_PACKAGES = ["@ppl/ppl", "@ppl/tensor"] as const;

/** tsconfig.json's compilerOptions for model files, as JSON (paths are absolute). */
export interface ModelCompilerOptions {
  readonly strict: true;
  readonly target: "ES2022";
  readonly lib: readonly string[];
  readonly module: "ESNext";
  readonly moduleResolution: "Bundler";
  readonly allowImportingTsExtensions: true;
  readonly noEmit: true;
  readonly skipLibCheck: true;
  readonly types: readonly string[];
  readonly typeRoots?: readonly string[];
  readonly paths: Readonly<Record<string, readonly string[]>>;
}

/** The compiler options of a model file: strict, with this toolkit's packages mapped to this CLI's copies. */
export function modelCompilerOptions(): ModelCompilerOptions {
  const paths: Record<string, string[]> = {};
  for (const name of MODEL_PACKAGES) Object.assign(paths, packagePaths(name));
  const nodeTypes = nodeTypesRoot();
  return {
    strict: true, target: "ES2022",
    // No DOM: its global Node would shadow the tensor's Node in the declarations.
    lib: ["ES2022"], module: "ESNext", moduleResolution: "Bundler", allowImportingTsExtensions: true, noEmit: true, skipLibCheck: true,
    // Node's own modules (node:fs…) are typed where @types/node is installed next to the CLI.
    types: nodeTypes === undefined ? [] : ["node"],
    ...(nodeTypes !== undefined ? { typeRoots: [nodeTypes] } : {}),
    paths,
  };
}

// Each entry of a package's exports map (".", "./inference"…) to its declaration file, or to its
// source where the package was not built (a checkout run from its sources).
function packagePaths(name: string): Record<string, string[]> {
  const root = packageRoot(name);
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { exports?: Record<string, Record<string, string>> };
  const out: Record<string, string[]> = {};
  for (const [sub, conditions] of Object.entries(manifest.exports ?? {})) {
    const types = conditions["types"] !== undefined ? join(root, conditions["types"]) : undefined;
    const source = conditions["@ppl/source"] !== undefined ? join(root, conditions["@ppl/source"]) : undefined;
    const file = types !== undefined && existsSync(types) ? types : source;
    if (file !== undefined) out[sub === "." ? name : `${name}/${sub.replace(/^\.\//, "")}`] = [file];
  }
  return out;
}

// The directory of the package this CLI resolves `name` to.
function packageRoot(name: string): string {
  let dir = dirname(fileURLToPath(import.meta.resolve(name)));
  for (;;) {
    const manifest = join(dir, "package.json");
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, "utf8")) as { name?: string }).name === name) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`the package ${name} that ppl runs on has no package.json above ${fileURLToPath(import.meta.resolve(name))}`);
    dir = up;
  }
}

// The @types directory holding node's declarations, as this CLI's module resolution finds them.
function nodeTypesRoot(): string | undefined {
  try {
    return dirname(dirname(createRequire(import.meta.url).resolve("@types/node/package.json")));
  } catch {
    return undefined;
  }
}

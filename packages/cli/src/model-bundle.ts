/**
 * Makes a model file loadable by Node without loading anything else through a transpiler: the
 * model (TypeScript or JavaScript) and the user's own files it imports are bundled by esbuild into
 * one ES module, kept in a cache directory and keyed by the model's path and content, esbuild's
 * version and the CLI's build; the files it imported are checked against their hashes before a
 * cached bundle is used.
 *
 * Imports of the ppl packages (`@ppl/ppl`, `@ppl/tensor`, …) always resolve to the copies this CLI
 * runs on, wherever the model lies: a model needs no node_modules of its own, and when a project
 * has installed the packages, the model still shares one instance of each with the CLI (models,
 * graphs and errors are recognised by the CLI's own code). Any other package, and any file in a
 * package directory, is left to Node, at the absolute path esbuild resolves from the importing
 * file's directory, so that it loads exactly once, as an import of it would have loaded it.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire, isBuiltin } from "node:module";
import { homedir, tmpdir } from "node:os";
import { dirname, join, parse, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Plugin } from "esbuild";

/** The packages of this toolkit; a model's imports of them are this CLI's own copies. */
const OWN_PACKAGE = /^@ppl\/(?:tensor|ppl|vulkan|ppl-vulkan|cli)(?:\/.*)?$/;

/**
 * This module's own file, whose modification time and size go into the cache key: a new build of
 * the CLI (whatever it changed in how models are bundled) does not use older entries.
 */
const SELF = fileURLToPath(import.meta.url);

/** What a cache entry records besides the bundle: every local file that went into it, and its hash. */
interface Manifest {
  readonly inputs: Readonly<Record<string, string>>;
}

/**
 * The URL to import for the model file at the absolute path `abs`: a cached bundle when one is
 * current, else a new one (written to the cache, or elsewhere where no cache can be written). Throws esbuild's error for a file that does not parse or an import that does not
 * resolve (its message holds `FILE:LINE:COLUMN: ERROR: text`, see source-location.ts).
 */
export async function bundleModel(abs: string): Promise<string> {
  const source = readFileSync(abs);
  const key = createHash("sha256")
    .update(JSON.stringify([selfStamp(), esbuildVersion(), abs, import.meta.resolve("@ppl/ppl")]))
    .update(source)
    .digest("hex")
    .slice(0, 32);
  const dir = cacheDir();
  const bundlePath = join(dir, `${key}.mjs`);
  const manifestPath = join(dir, `${key}.json`);
  if (isCurrent(manifestPath, bundlePath)) return pathToFileURL(bundlePath).href;

  const { code, inputs } = await build(abs);
  try {
    mkdirSync(dir, { recursive: true });
    // Written under temporary names and renamed, so that a concurrent run never reads half a file;
    // the manifest last, so that it never names a bundle that is not there.
    const tmp = `.${process.pid}.tmp`;
    writeFileSync(bundlePath + tmp, code);
    renameSync(bundlePath + tmp, bundlePath);
    writeFileSync(manifestPath + tmp, JSON.stringify({ inputs } satisfies Manifest));
    renameSync(manifestPath + tmp, manifestPath);
    pruneCache(dir);
    return pathToFileURL(bundlePath).href;
  } catch {
    return uncachedUrl(code);
  }
}

// Where the cache cannot be written (a read-only home): a private temporary folder for this
// process, else a data: URL (its imports are absolute URLs or built-in modules, which is all a
// data: module may import; but Node maps no stack frames of one back to the model's lines).
function uncachedUrl(code: Uint8Array): string {
  try {
    const dir = mkdtempSync(join(tmpdir(), "ppl-model-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, "model.mjs"), code);
    return pathToFileURL(join(dir, "model.mjs")).href;
  } catch {
    return `data:text/javascript;base64,${Buffer.from(code).toString("base64")}`;
  }
}

/** $PPL_CACHE_DIR, else $XDG_CACHE_HOME/ppl, else ~/.cache/ppl; bundles go in its models/ folder. */
export function cacheDir(): string {
  const root = process.env["PPL_CACHE_DIR"] || join(process.env["XDG_CACHE_HOME"] || join(homedir(), ".cache"), "ppl");
  return join(root, "models");
}

/** Bundles not written for this long are removed (a model still in use is bundled again once). */
const CACHE_LIFETIME_MS = 30 * 24 * 3600 * 1000;

// Every model file ever run, temporary ones too, leaves an entry: on each miss, the entries older
// than CACHE_LIFETIME_MS go, so that the cache stays the size of the models in use.
function pruneCache(dir: string): void {
  const cutoff = Date.now() - CACHE_LIFETIME_MS;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(dir, name);
    try {
      if (statSync(path).mtimeMs < cutoff) rmSync(path, { force: true });
    } catch {
      // Removed by a concurrent run.
    }
  }
}

function selfStamp(): string {
  const s = statSync(SELF);
  return `${s.mtimeMs}:${s.size}`;
}

// esbuild's version, from its package.json: importing esbuild itself is left to a cache miss.
function esbuildVersion(): string {
  const require = createRequire(import.meta.url);
  return (JSON.parse(readFileSync(require.resolve("esbuild/package.json"), "utf8")) as { version: string }).version;
}

function isCurrent(manifestPath: string, bundlePath: string): boolean {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as Manifest;
  } catch {
    return false;
  }
  if (!existsSync(bundlePath)) return false;
  return Object.entries(manifest.inputs).every(([path, hash]) => {
    try {
      return sha256(readFileSync(path)) === hash;
    } catch {
      return false;
    }
  });
}

async function build(abs: string): Promise<{ code: Uint8Array; inputs: Record<string, string> }> {
  const esbuild = await import("esbuild");
  const modelUrl = pathToFileURL(abs).href;
  const root = parse(abs).root;
  const result = await esbuild.build({
    entryPoints: [abs],
    // The output is written by bundleModel; this name at the file system's root only makes the
    // source map's paths relative to the root, and sourceRoot makes them absolute file URLs, so
    // that they are right wherever the bundle lies (the cache, or a data: URL).
    outfile: join(root, "ppl-model.mjs"),
    sourceRoot: pathToFileURL(root).href,
    write: false,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // Stack traces point into the model's own lines (process.setSourceMapsEnabled in load-model.ts).
    sourcemap: "inline",
    sourcesContent: false,
    metafile: true,
    logLevel: "silent",
    // Error messages name files relative to the working directory, as the user gave them.
    absWorkingDir: process.cwd(),
    // Packages resolve as Node resolves them (esbuild would add the "module" condition and field).
    conditions: [],
    mainFields: ["main"],
    plugins: [importsPlugin()],
    // The bundle lives in the cache, but the model's code sees its own file.
    define: {
      "import.meta.url": JSON.stringify(modelUrl),
      "import.meta.filename": JSON.stringify(abs),
      "import.meta.dirname": JSON.stringify(dirname(abs)),
    },
    // require() in a model (CommonJS helpers) resolves from the model's directory.
    banner: { js: `import { createRequire as __pplCreateRequire } from "node:module"; const require = __pplCreateRequire(${JSON.stringify(modelUrl)});` },
  });
  const inputs: Record<string, string> = {};
  for (const file of Object.keys(result.metafile.inputs)) {
    const path = resolve(process.cwd(), file);
    inputs[path] = sha256(readFileSync(path));
  }
  return { code: result.outputFiles[0]!.contents, inputs };
}

// Marks what the bundle leaves to Node (see the module comment); the rest, the user's own files, is bundled.
function importsPlugin(): Plugin {
  const again = Symbol("resolving");
  return {
    name: "ppl-model-imports",
    setup(build) {
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.kind === "entry-point" || args.pluginData === again) return undefined;
        // import takes a file URL, require() (CommonJS helpers) a path.
        const external = (url: string) => ({ path: args.kind.startsWith("require") ? fileURLToPath(url) : url, external: true });
        if (OWN_PACKAGE.test(args.path)) return external(import.meta.resolve(args.path));
        if (isBuiltin(args.path)) return { path: args.path, external: true };
        const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: again });
        if (found.errors.length > 0) return { errors: found.errors };
        if (found.external || found.namespace !== "file") return { path: found.path, external: found.external, namespace: found.namespace };
        if (inPackage(found.path)) return external(pathToFileURL(found.path).href);
        return { path: found.path };
      });
    },
  };
}

// A file of an installed package, or of one of this toolkit's packages reached by its path (a
// model importing "../packages/ppl/src/index.ts" gets the package itself, not a second copy of it).
function inPackage(path: string): boolean {
  if (path.includes(`${sep}node_modules${sep}`)) return true;
  if (!path.includes(`${sep}src${sep}`) && !path.includes(`${sep}dist${sep}`)) return false;
  const name = nearestPackageName(dirname(path));
  return name !== undefined && OWN_PACKAGE.test(name);
}

const packageNames = new Map<string, string | undefined>();

function nearestPackageName(dir: string): string | undefined {
  if (packageNames.has(dir)) return packageNames.get(dir);
  let name: string | undefined;
  try {
    name = (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string }).name ?? "";
  } catch {
    const parent = dirname(dir);
    name = parent === dir ? undefined : nearestPackageName(parent);
  }
  packageNames.set(dir, name);
  return name;
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

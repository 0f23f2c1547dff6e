// Builds the package in the working directory (its `pnpm build`) into dist/:
//
// - JavaScript: esbuild bundles each entry point of package.json's "exports" (the "@ppl/source"
//   file to the "default" one), plus the modules given as NAME=SRC arguments that are loaded by URL
//   at run time (a worker's script), with code splitting, so that the entry points share one copy
//   of each module. The @stdlib packages are bundled in: they are hundreds of small CommonJS files,
//   and loading them one by one took most of a command's start-up (about 0.3 s of `ppl summary`'s
//   0.8 s; the bundles load in a fifth of the time). Every other dependency stays an import, the
//   other @ppl packages above all, so that a process has one instance of each package however many
//   importers it has (the CLI and a user's model). Entries and chunks lie at dist/'s top level, one
//   folder below the package as src/'s top-level modules are, so that the paths modules take
//   relative to their own file (the addon, the shaders, package.json) stay right.
// - Declarations: tsc emits the .d.ts files (tsconfig.build.json), one per source file. It does
//   not check types: `pnpm typecheck` checks the whole repository once, from the sources.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { build } from "esbuild";

const pkg = JSON.parse(readFileSync("package.json", "utf8"));
const entryPoints = {};
for (const target of Object.values(pkg.exports ?? {})) {
  const source = target["@ppl/source"];
  const out = target["default"];
  if (typeof source !== "string" || typeof out !== "string") throw new Error(`${pkg.name}: each export needs "@ppl/source" and "default" targets`);
  entryPoints[out.replace(/^\.\/dist\//, "").replace(/\.js$/, "")] = source;
}
for (const arg of process.argv.slice(2)) {
  const [name, source] = arg.split("=");
  if (!name || !source) throw new Error(`build-package: expected NAME=SRC, got '${arg}'`);
  entryPoints[name] = source;
}
const external = Object.keys(pkg.dependencies ?? {})
  .filter((d) => !d.startsWith("@stdlib/"))
  .flatMap((d) => [d, `${d}/*`]);

// dist/ is not emptied first: other processes (a test run, `ppl` itself) may be loading from it
// while this runs; files are overwritten in place, and only those this build did not write are
// removed at the end (chunks of an older build, declarations of deleted sources).
const result = await build({
  entryPoints,
  outdir: "dist",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external,
  logLevel: "warning",
  metafile: true,
  // The bundled CommonJS modules require Node's built-in modules (tty, util) at run time.
  banner: { js: 'import { createRequire as __pplCreateRequire } from "node:module"; const require = __pplCreateRequire(import.meta.url);' },
});

const written = new Set(Object.keys(result.metafile.outputs).map((f) => resolve(f)));

const tsc = createRequire(join(process.cwd(), "package.json")).resolve("typescript/bin/tsc");
const declarations = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--listEmittedFiles"], { encoding: "utf8" });
process.stderr.write(declarations.stderr);
for (const line of declarations.stdout.split("\n")) {
  if (line.startsWith("TSFILE: ")) written.add(resolve(line.slice("TSFILE: ".length)));
  else if (line.trim() !== "") process.stdout.write(line + "\n");
}
if (declarations.status !== 0) process.exit(declarations.status ?? 1);
for (const file of readdirSync("dist", { recursive: true, withFileTypes: true })) {
  const path = resolve(file.parentPath, file.name);
  if (file.isFile() && !written.has(path)) rmSync(path);
}

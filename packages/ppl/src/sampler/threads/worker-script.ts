/**
 * Which file a sampler worker thread starts from. Loading the sampler's TypeScript sources in a
 * fresh thread through tsx takes about half a second (hundreds of modules, the special functions'
 * packages among them), which is longer than many whole runs; one bundled file loads in about a
 * tenth of that. So the worker module is bundled with esbuild once and cached on disk, keyed by the
 * modification times and sizes of every file that went into it; until a bundle is ready (the first
 * run after a change to the sources) and wherever bundling is impossible, the worker loads the
 * sources through worker-entry.mjs.
 */
import { createHash } from "node:crypto";
import { mkdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/** How to start a worker: the script's URL and the module worker-entry.mjs loads when that is the script. */
export interface WorkerScript {
  readonly url: URL;
  readonly entry: string;
}

interface Manifest {
  readonly bundle: string;
  readonly inputs: Readonly<Record<string, string>>;
}

const workerModule = new URL(import.meta.url.endsWith(".ts") ? "./chain-worker.ts" : "./chain-worker.js", import.meta.url);
const unbundled: WorkerScript = { url: new URL("./worker-entry.mjs", import.meta.url), entry: workerModule.href };

// One bundling per process; later runs reuse it.
let pending: Promise<WorkerScript> | null = null;

/** The bundled worker when one is (or can be made) current; the unbundled entry otherwise. */
export function workerScript(): Promise<WorkerScript> {
  if (!workerModule.href.endsWith(".ts")) return Promise.resolve({ url: workerModule, entry: workerModule.href });
  return (pending ??= bundled().catch(() => unbundled));
}

async function bundled(): Promise<WorkerScript> {
  const source = fileURLToPath(workerModule);
  const root = join(tmpdir(), `ppl-sampler-worker-${process.getuid?.() ?? "user"}`);
  const dir = join(root, createHash("sha1").update(source).digest("hex").slice(0, 12));
  const manifestPath = join(dir, "manifest.json");
  if (!(await ownDirectory(dir))) return unbundled;
  const current = await readManifest(manifestPath);
  if (current && (await unchanged(current, join(dir, current.bundle)))) return { url: pathToFileURL(join(dir, current.bundle)), entry: "" };

  // esbuild is tsx's own bundler; without it the sources are loaded as they are.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: [source],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    write: false,
    metafile: true,
    logLevel: "silent",
    absWorkingDir: "/",
    // Some CommonJS dependencies require Node's built-in modules at run time.
    banner: { js: "import { createRequire as __pplRequire } from 'node:module'; const require = __pplRequire(import.meta.url);" },
  });
  const code = result.outputFiles[0]!.contents;
  const inputs: Record<string, string> = {};
  for (const file of Object.keys(result.metafile.inputs)) {
    const path = resolve("/", file);
    inputs[path] = await fingerprint(path);
  }
  const bundle = `worker-${createHash("sha1").update(code).digest("hex").slice(0, 16)}.mjs`;
  // Only this user may write there: the bundle found in it is run.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Written under temporary names and renamed, so that a concurrent run never reads half a file.
  const tmp = `.${process.pid}-${Date.now()}`;
  await writeFile(join(dir, bundle + tmp), code);
  await rename(join(dir, bundle + tmp), join(dir, bundle));
  await writeFile(manifestPath + tmp, JSON.stringify({ bundle, inputs } satisfies Manifest));
  await rename(manifestPath + tmp, manifestPath);
  return { url: pathToFileURL(join(dir, bundle)), entry: "" };
}

// A cache directory that is absent, or this user's and writable by no one else (the tmp directory is
// shared, and a bundle found there is run). Each folder up to the tmp directory is checked.
async function ownDirectory(dir: string): Promise<boolean> {
  const uid = process.getuid?.();
  for (const d of [dir, dirname(dir)]) {
    const s = await stat(d).catch(() => null);
    if (s === null) continue;
    if (!s.isDirectory() || (uid !== undefined && s.uid !== uid) || (s.mode & 0o022) !== 0) return false;
  }
  return true;
}

async function readManifest(path: string): Promise<Manifest | null> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as Manifest;
  } catch {
    return null;
  }
}

async function unchanged(m: Manifest, bundle: string): Promise<boolean> {
  if (!(await stat(bundle).then((b) => b.isFile(), () => false))) return false;
  const checks = await Promise.all(Object.entries(m.inputs).map(async ([path, print]) => (await fingerprint(path).catch(() => "")) === print));
  return checks.every(Boolean);
}

async function fingerprint(path: string): Promise<string> {
  const s = await stat(path);
  return `${s.mtimeMs}:${s.size}`;
}

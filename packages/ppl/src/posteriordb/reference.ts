import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** Reference statistics of one constrained parameter (posteriordb's reference.json). */
export interface ReferenceParameter {
  readonly mean: number;
  readonly sd: number;
  readonly mcse_mean: number;
  readonly q05: number;
  readonly q50: number;
  readonly q95: number;
}

/** The settings the reference run used (Stan's `control` block and friends). */
export interface ReferenceMethodArguments {
  readonly chains?: number;
  readonly iter?: number;
  readonly warmup?: number;
  readonly thin?: number;
  readonly seed?: number;
  readonly control?: { readonly adapt_delta?: number; readonly max_treedepth?: number };
}

/** A reference posterior: its statistics per parameter and how they were made. */
export interface Reference {
  readonly posterior: string;
  readonly params: Readonly<Record<string, ReferenceParameter>>;
  readonly inference: { readonly method: string; readonly method_arguments: ReferenceMethodArguments };
}

/** A posterior folder as loaded: its name, the data in Stan's JSON format, and the reference. */
export interface Posterior {
  readonly name: string;
  readonly data: unknown;
  readonly reference: Reference;
}

// The checkout's root, two folders above this package's own (packages/ppl): found from the folder of
// the running module, which is src/posteriordb/ in the sources but the top of dist/ in the bundle (a
// fixed "../../../../" pointed one folder above the checkout there).
const REPO_ROOT = join(packageRoot(dirname(fileURLToPath(import.meta.url))), "..", "..");

// The nearest folder at or above dir that holds a package.json.
function packageRoot(dir: string): string {
  return existsSync(join(dir, "package.json")) || dirname(dir) === dir ? dir : packageRoot(dirname(dir));
}

/**
 * The folder holding the posterior folders: $PPL_POSTERIORDB_DIR, else the shared
 * folder beside the checkout, else one inside it (both layouts occur).
 */
export function posteriordbDir(): string {
  const fromEnv = process.env.PPL_POSTERIORDB_DIR;
  if (fromEnv) return fromEnv;
  const candidates = [join(REPO_ROOT, "..", "shared", "posteriordb"), join(REPO_ROOT, "shared", "posteriordb")];
  const found = candidates.find((c) => existsSync(c));
  if (!found) throw new Error(`posteriordb folder not found (looked in ${candidates.join(", ")}); set PPL_POSTERIORDB_DIR`);
  return found;
}

/**
 * The folder of the ODE posteriors (hudson_lynx_hare-lotka_volterra, one_comp_mm_elim_abs), kept
 * apart from the others: $PPL_POSTERIORDB_ODE_DIR, else posteriordb-ode beside the main folder
 * (undefined when there is none).
 */
export function odePosteriordbDir(): string | undefined {
  const fromEnv = process.env.PPL_POSTERIORDB_ODE_DIR;
  if (fromEnv) return fromEnv;
  const candidates = [join(REPO_ROOT, "..", "shared", "posteriordb-ode"), join(REPO_ROOT, "shared", "posteriordb-ode")];
  return candidates.find((c) => existsSync(c));
}

/** The folders the suite reads posteriors from: the main one, then the ODE one where present. */
export function posteriordbDirs(): string[] {
  const ode = odePosteriordbDir();
  return ode ? [posteriordbDir(), ode] : [posteriordbDir()];
}

/** The folder holding posterior `name`: the first of posteriordbDirs() with a folder of that name (else the main one). */
export function folderOf(name: string): string {
  return posteriordbDirs().find((d) => existsSync(join(d, name, "reference.json"))) ?? posteriordbDir();
}

/** The folder of the posteriordb model files (examples/posteriordb in the checkout). */
export function modelsDir(): string {
  return join(REPO_ROOT, "examples", "posteriordb");
}

/** Reads a posterior folder's data.json and reference.json (from whichever suite folder holds it, unless `dir` is given). */
export function loadPosterior(name: string, dir: string = folderOf(name)): Posterior {
  const read = (file: string): unknown => JSON.parse(readFileSync(join(dir, name, file), "utf8"));
  const reference = read("reference.json") as Reference;
  if (typeof reference !== "object" || reference === null || typeof reference.params !== "object") {
    throw new Error(`${name}/reference.json has no 'params' object`);
  }
  return { name, data: read("data.json"), reference };
}

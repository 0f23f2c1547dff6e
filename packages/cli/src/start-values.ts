/**
 * Where `ppl sample` starts: `--init FILE.json` (constrained initial values in Stan's JSON) and
 * `--inv-metric FILE.json` (CmdStan's metric file), read and checked against the compiled model
 * before anything is sampled, so that a bad file is one line naming the file and the fix.
 */
import { ModelError, philoxRng, type CompiledModel } from "@ppl/ppl";
import { usageError } from "./exit-codes.ts";
import { readTextFile } from "./read-file.ts";

/** The radius CmdStan draws the parameters an init file leaves out from, on the unconstrained scale. */
const MISSING_RADIUS = 2;

/** Initial points read from an init file: one unconstrained vector per chain, and notes for the log. */
export interface InitValues {
  readonly perChain: Float64Array[];
  readonly notes: string[];
}

function readJson(path: string, what: string): unknown {
  const text = readTextFile(path, what);
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw usageError(`${what} '${path}' is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Reads `--init FILE.json`: one object shared by every chain, or an array of one object per chain.
 * Keys that are not parameters are ignored (a fit's output may hold deterministics), as CmdStan
 * does; parameters left out start uniform in (-2, 2) on the unconstrained scale, as CmdStan's do,
 * from the Philox stream of the run's seed and the chain's id (`firstChain` + its row, so that
 * chain groups of --first-chain start as one run's chains do).
 */
export function readInitFile(path: string, compiled: CompiledModel, chains: number, seed: number, firstChain = 0): InitValues {
  const json = readJson(path, "init file");
  const objects = Array.isArray(json) ? json : [json];
  if (!objects.every(isRecord)) throw usageError(`init file '${path}' must hold an object of parameter values, or an array of one object per chain`);
  if (Array.isArray(json) && objects.length !== 1 && objects.length !== chains) {
    throw usageError(`init file '${path}' holds ${objects.length} objects for ${chains} chains; give one per chain, or one object shared by all`);
  }
  const params = new Set(compiled.paramInfo.map((p) => p.name));
  const notes: string[] = [];
  const ignored = [...new Set(objects.flatMap((o) => Object.keys(o).filter((k) => !params.has(k))))];
  if (ignored.length > 0) notes.push(`note: init file '${path}': ignoring ${ignored.join(", ")} (not parameters of model '${compiled.name}')`);
  const missing = [...new Set(objects.flatMap((o) => compiled.paramInfo.filter((p) => !(p.name in o)).map((p) => p.name)))];
  if (missing.length > 0) notes.push(`note: init file '${path}' has no value for ${missing.join(", ")}; ${missing.length === 1 ? "it starts" : "they start"} uniform in (-2, 2) on the unconstrained scale`);
  const perChain = Array.from({ length: chains }, (_, c) => {
    const values = objects[objects.length === 1 ? 0 : c] as Record<string, unknown>;
    const known = Object.fromEntries(Object.entries(values).filter(([k]) => params.has(k)));
    let q: Float64Array;
    try {
      q = compiled.unconstrain(known);
    } catch (e) {
      const where = objects.length === 1 ? "" : ` (chain ${c + 1})`;
      if (e instanceof ModelError) throw usageError(`init file '${path}'${where}: ${e.message.replace(/^unconstrain: /, "")}; give constrained values within each parameter's support`);
      throw e;
    }
    const rng = philoxRng(seed, firstChain + c);
    for (const p of compiled.paramInfo) {
      if (p.name in values) continue;
      for (let j = 0; j < p.unconstrainedSize; j++) q[p.offset + j] = MISSING_RADIUS * (2 * rng.uniform() - 1);
    }
    return q;
  });
  return { perChain, notes };
}

/**
 * Reads `--inv-metric FILE.json` in CmdStan's format, `{"inv_metric": [...]}`: a vector (diagonal)
 * or an array of rows (dense), over the unconstrained parameters. Returns the values as the sampler
 * takes them (dense row-major).
 */
export function readInvMetricFile(path: string, metric: "diag" | "dense", dim: number): Float64Array {
  const json = readJson(path, "inverse metric file");
  const m = isRecord(json) ? json["inv_metric"] : undefined;
  if (!Array.isArray(m)) throw usageError(`inverse metric file '${path}' must be CmdStan's {"inv_metric": [...]} (a vector for --metric diag, an array of rows for --metric dense)`);
  const dense = m.length > 0 && m.every(Array.isArray);
  if (dense !== (metric === "dense")) {
    throw usageError(`inverse metric file '${path}' holds a ${dense ? "dense matrix" : "vector"}, the run adapts a ${metric} metric; give --metric ${dense ? "dense" : "diag"} or the other form`);
  }
  const rows = dense ? (m as unknown[][]) : [m];
  const flat = rows.flat();
  const wanted = dense ? dim * dim : dim;
  if (flat.length !== wanted || (dense && rows.some((r) => r.length !== dim))) {
    throw usageError(`inverse metric file '${path}' has ${dense ? `${rows.length} rows of ${rows.map((r) => r.length).join("/")}` : `${flat.length}`} values; the model has ${dim} unconstrained parameters, so give ${dense ? `${dim} rows of ${dim}` : `${dim} values`}`);
  }
  if (!flat.every((x) => typeof x === "number" && Number.isFinite(x))) throw usageError(`inverse metric file '${path}' holds a value that is not a finite number`);
  const out = Float64Array.from(flat as number[]);
  if (!dense && out.some((x) => !(x > 0))) throw usageError(`inverse metric file '${path}': a diagonal inverse metric must be positive`);
  if (dense && !symmetricPositiveDefinite(out, dim)) throw usageError(`inverse metric file '${path}': a dense inverse metric must be symmetric and positive definite`);
  return out;
}

// Cholesky succeeds exactly for symmetric positive definite matrices (checked for symmetry first).
function symmetricPositiveDefinite(a: Float64Array, n: number): boolean {
  for (let i = 0; i < n; i++) for (let j = 0; j < i; j++) if (a[i * n + j] !== a[j * n + i]) return false;
  const l = new Float64Array(n * n);
  for (let j = 0; j < n; j++) {
    let d = a[j * n + j]!;
    for (let k = 0; k < j; k++) d -= l[j * n + k]! ** 2;
    if (!(d > 0)) return false;
    l[j * n + j] = Math.sqrt(d);
    for (let i = j + 1; i < n; i++) {
      let s = a[i * n + j]!;
      for (let k = 0; k < j; k++) s -= l[i * n + k]! * l[j * n + k]!;
      l[i * n + j] = s / l[j * n + j]!;
    }
  }
  return true;
}

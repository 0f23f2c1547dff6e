/**
 * Points given as constrained values (`ppl laplace --mode FILE`, `ppl log-prob --params FILE`): a
 * Stan CSV file (the optimize.csv of `ppl optimize`, a run's draws, CmdStan's) or a JSON file in
 * Stan's init format; returned on the unconstrained scale.
 */
import { ModelError, readStanCsv, toStanCsvName, type CompiledModel } from "@ppl/ppl";
import { readTextFile } from "./read-file.ts";
import { usageError } from "./exit-codes.ts";
import { readInitFile } from "./start-values.ts";

/** The unconstrained mode read from `path` (.json: Stan init format; else a Stan CSV file, its last row). */
export function readModeFile(path: string, compiled: CompiledModel): Float64Array {
  const rows = readConstrainedPoints(path, compiled, "mode file");
  return rows[rows.length - 1]!;
}

/** Every point a file of constrained values holds, unconstrained: one for a JSON object, one per row of a Stan CSV file. */
export function readConstrainedPoints(path: string, compiled: CompiledModel, what: string): Float64Array[] {
  if (path.toLowerCase().endsWith(".json")) {
    const init = readInitFile(path, compiled, 1, 0);
    // A point must be whole: a parameter left out would be drawn at random, as an initial value is.
    const json: unknown = JSON.parse(readTextFile(path, what));
    const given = typeof json === "object" && json !== null && !Array.isArray(json) ? Object.keys(json) : [];
    const missing = compiled.paramInfo.filter((p) => !given.includes(p.name)).map((p) => p.name);
    if (missing.length > 0) throw usageError(`${what} '${path}' has no value for ${missing.join(", ")}; give every parameter of model '${compiled.name}' (one object of constrained values)`);
    return [init.perChain[0]!];
  }
  const csv = readStanCsv(readTextFile(path, what));
  const rows = csv.draws[0]?.length ?? 0;
  if (rows === 0) throw usageError(`${what} '${path}' holds no row of values; give a Stan CSV file of this model's draws or mode, or a JSON file of constrained values`);
  const names = compiled.constrainedNames();
  const columns: { readonly name: string; readonly shape: readonly number[]; readonly cols: number[] }[] = [];
  let k = 0;
  for (const p of compiled.paramInfo) {
    const cols: number[] = [];
    for (let j = 0; j < p.constrainedSize; j++, k++) {
      const col = csv.columns.indexOf(toStanCsvName(names[k]!));
      if (col < 0) throw usageError(`${what} '${path}' has no column ${toStanCsvName(names[k]!)} of model '${compiled.name}'; give a file written for this model`);
      cols.push(col);
    }
    columns.push({ name: p.name, shape: p.shape, cols });
  }
  return Array.from({ length: rows }, (_, r) => {
    const values = Object.fromEntries(columns.map((c) => [c.name, nestColumnMajor(c.cols.map((col) => csv.draws[col]![r]!), c.shape)]));
    try {
      return compiled.unconstrain(values);
    } catch (e) {
      if (e instanceof ModelError) throw usageError(`${what} '${path}' (row ${r + 1}): ${e.message.replace(/^unconstrain: /, "")}`);
      throw e;
    }
  });
}

// Stan's CSV order (first index fastest) as nested arrays, rows first, as Stan's JSON holds them.
function nestColumnMajor(flat: readonly number[], shape: readonly number[]): unknown {
  if (shape.length === 0) return flat[0];
  const strides: number[] = [];
  let s = 1;
  for (const d of shape) {
    strides.push(s);
    s *= d;
  }
  const build = (dim: number, offset: number): unknown =>
    dim === shape.length ? flat[offset] : Array.from({ length: shape[dim]! }, (_, i) => build(dim + 1, offset + i * strides[dim]!));
  return build(0, 0);
}

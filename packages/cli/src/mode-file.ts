/**
 * `ppl laplace --mode FILE`: the mode as constrained values, from the optimize.csv of `ppl optimize`
 * (or CmdStan's) or from a JSON file in Stan's init format; returned on the unconstrained scale.
 */
import { ModelError, readStanCsv, toStanCsvName, type CompiledModel } from "@ppl/ppl";
import { readTextFile } from "./read-file.ts";
import { usageError } from "./exit-codes.ts";
import { readInitFile } from "./start-values.ts";

/** The unconstrained mode read from `path` (.json: Stan init format; else a Stan CSV file, its last row). */
export function readModeFile(path: string, compiled: CompiledModel): Float64Array {
  if (path.toLowerCase().endsWith(".json")) return readInitFile(path, compiled, 1, 0).perChain[0]!;
  const csv = readStanCsv(readTextFile(path, "mode file"));
  const rows = csv.draws[0]?.length ?? 0;
  if (rows === 0) throw usageError(`mode file '${path}' holds no row of values; give the optimize.csv of \`ppl optimize\`, or a JSON file of constrained values`);
  const names = compiled.constrainedNames();
  const values: Record<string, unknown> = {};
  let k = 0;
  for (const p of compiled.paramInfo) {
    const flat: number[] = [];
    for (let j = 0; j < p.constrainedSize; j++, k++) {
      const col = csv.columns.indexOf(toStanCsvName(names[k]!));
      if (col < 0) throw usageError(`mode file '${path}' has no column ${toStanCsvName(names[k]!)} of model '${compiled.name}'; give the optimize.csv of a run of this model`);
      flat.push(csv.draws[col]![rows - 1]!);
    }
    values[p.name] = nestColumnMajor(flat, p.shape);
  }
  try {
    return compiled.unconstrain(values);
  } catch (e) {
    if (e instanceof ModelError) throw usageError(`mode file '${path}': ${e.message.replace(/^unconstrain: /, "")}`);
    throw e;
  }
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

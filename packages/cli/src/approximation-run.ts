/**
 * What `ppl optimize` and `ppl laplace` share: the model compiled against its data, the density
 * with or without the log-Jacobian, the initial point (CmdStan's: uniform in (−r, r) on the
 * unconstrained scale, up to 100 tries for a finite density, or constrained values from a file),
 * the mode found by an optimizer, and a one-row-per-point Stan CSV file in CmdStan's layout.
 */
import { approximationTarget, type ApproximationSource, fileSink, formatNumber, randomInitialPoint, runConfig, writeStanCsv, type CompiledModel, type ConfigNode, type Model } from "@ppl/ppl";
import type { BatchedObjective, Objective } from "@ppl/ppl/inference";
import { compileWithData } from "./compile.ts";
import { modelError } from "./exit-codes.ts";
import type { CommandIO } from "./io.ts";
import { loadData } from "./load-data.ts";
import { firstLine, loadModel } from "./load-model.ts";
import { readInitFile } from "./start-values.ts";

/** A model ready for an approximation: compiled, its objective (−log density) and the density's reported values. */
export interface ApproximationModel {
  readonly model: Model;
  /** The model and its data, which the files' headers describe (the observed terms and integer data). */
  readonly source: ApproximationSource;
  readonly compiled: CompiledModel;
  readonly objective: Objective;
  /** The objective at many points in one call, where --backend placed it on a GPU (approximation-backend-flags.ts). */
  readonly batched?: BatchedObjective;
  /** Constrained parameters and deterministics at an unconstrained point. */
  generated(q: Float64Array): Float64Array;
}

/** Loads and compiles the model and builds its objective, with the log-Jacobian or without. */
export async function approximationModel(modelPath: string, dataPath: string | undefined, jacobian: boolean, io: CommandIO): Promise<ApproximationModel> {
  const model = await loadModel(modelPath);
  const data = loadData(dataPath);
  const compiled = compileWithData(model, data, modelPath, dataPath, (line) => io.stderr.write(line + "\n"));
  try {
    // compileWithData accepted the data: an object of the model's fields.
    return { model, source: { model, data: data as Readonly<Record<string, unknown>> }, ...(await approximationTarget(compiled, jacobian)) };
  } catch (e) {
    throw modelError(`model '${compiled.name}': its log density could not be compiled: ${firstLine(e)}`, e);
  }
}

/** The initial unconstrained point: from `--init FILE` (constrained values), else uniform in (−r, r), retried until the density is finite. */
export function initialPoint(m: ApproximationModel, init: number | string, seed: number): Float64Array {
  if (typeof init === "string") return readInitFile(init, m.compiled, 1, seed).perChain[0]!;
  const q = randomInitialPoint(m.objective, init, seed);
  if (q !== null) return q;
  throw modelError(`model '${m.compiled.name}': the log density is not finite at 100 random initial points uniform in (−${init}, ${init}); give initial values with --init FILE.json, or a smaller --init radius`);
}

/**
 * Writes a Stan CSV file whole through the library's writer: settings, header (`lead` columns as
 * given, then the variables' dotted names), rows, comment lines, and CmdStan's timing footer
 * (`seconds` as the sampling time, no warmup), so that the files read back as finished runs.
 */
export function writeCsvFile(path: string, config: readonly ConfigNode[], lead: readonly string[], names: readonly string[], rows: readonly ArrayLike<number>[], seconds: number, trailer: readonly string[] = []): void {
  const writer = writeStanCsv(fileSink(path), { config, parameters: names, samplerColumns: lead });
  try {
    for (const r of rows) writer.writeDraw(r);
    for (const t of trailer) writer.writeComment(t);
  } finally {
    writer.close({ warmup: 0, sampling: seconds });
  }
}

/** The settings CmdStan writes after the method's own: id, data file, init, seed, output file. */
export function commonConfig(dataPath: string | undefined, init: number | string, seed: number, seedGiven: boolean, output: string): ConfigNode[] {
  return [...runConfig(dataPath, init, seed, seedGiven), { key: "output", children: [{ key: "file", value: output }] }];
}

/** Prints name/value pairs as two aligned columns. */
export function printEstimates(io: CommandIO, names: readonly string[], values: ArrayLike<number>): void {
  const width = Math.max(8, ...names.map((n) => n.length));
  io.stdout.write(`${"variable".padEnd(width)}  estimate\n`);
  names.forEach((n, i) => io.stdout.write(`${n.padEnd(width)}  ${formatNumber(values[i]!)}\n`));
}

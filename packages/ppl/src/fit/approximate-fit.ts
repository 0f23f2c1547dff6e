/**
 * The draws of an approximation of a model's posterior (Laplace, Pathfinder, ADVI), as a
 * TypeScript user reads them: independent draws of every variable by name on the constrained
 * scale, their moments and quantiles, each draw's log densities, the Stan CSV file the CLI
 * writes for the same method (so that `ppl summary`, `ppl export` and CmdStan's readers read it),
 * and ArviZ's InferenceData.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { ConfigNode } from "../io/config.ts";
import { LOG_LIK_NAME, logLikEvaluator } from "../loo/pointwise-log-lik.ts";
import type { CompiledModel } from "../model/compile.ts";
import { fileSink } from "../io/sink.ts";
import { writeStanCsv } from "../io/stan-csv-writer.ts";
import type { AdviResult } from "../variational/advi.ts";
import { FitError } from "./fit-error.ts";
import type { ApproximationSource } from "./approximate-options.ts";
import type { VariableDraws } from "./fit.ts";
import { writeFitInferenceData } from "./fit-inference-data.ts";

/** The approximations that `approximate` runs, and the optimizer's one-row file. */
export type ApproximationMethod = "optimize" | "laplace" | "pathfinder" | "variational";

/** One variable's moments and quantiles over an approximation's draws. */
export interface ApproximateSummaryRow {
  readonly name: string;
  readonly mean: number;
  readonly sd: number;
  readonly q5: number;
  readonly q50: number;
  readonly q95: number;
}

/** What an ApproximateFit is made from (see approximate); not for users to build. */
export interface ApproximateFitParts {
  readonly method: ApproximationMethod;
  readonly model: string;
  /** The compiled model and the model and data it was compiled from, for toInferenceData (absent: it refuses). */
  readonly compiled?: CompiledModel;
  readonly source?: ApproximationSource;
  readonly seed: number;
  /** Element names of the columns (mu, theta[1], …, then generated quantities). */
  readonly names: readonly string[];
  /** Shapes of the variables, in column order. */
  readonly shapes: ReadonlyMap<string, readonly number[]>;
  /** One row of constrained values per draw. */
  readonly rows: readonly Float64Array[];
  /** Leading columns of the CSV file (log_p__ and log_g__, or lp_approx__ and lp__), one array per column. */
  readonly lead: ReadonlyMap<string, Float64Array>;
  /** A row written before the draws (ADVI's mean, as CmdStan writes it), or none. */
  readonly firstRow?: Float64Array;
  /** The method's settings as the CSV header lists them. */
  readonly config: readonly ConfigNode[];
  /** Lines the method reports (paths, Pareto k, convergence), also written as comments after the draws. */
  readonly notes: readonly string[];
  /** Comment lines written before the draws (ADVI's adapted η, where CmdStan writes it). */
  readonly headComments?: readonly string[];
  /** False when the method stopped before its convergence test passed (ADVI at its iteration limit). */
  readonly converged: boolean;
  /** Pathfinder's Pareto k of the pooled importance weights (NaN for the other methods). */
  readonly paretoK?: number;
  /** ADVI's fitted approximation and the course of its ascent. */
  readonly ascent?: AdviResult;
  readonly seconds: number;
}

/** Independent draws from an approximation of a model's posterior (what `approximate(model, data, options)` resolves to). */
export class ApproximateFit {
  readonly method: ApproximationMethod;
  /** The model's name. */
  readonly model: string;
  readonly seed: number;
  /** Every variable's element names in column order (mu, theta[1], …). */
  readonly names: readonly string[];
  /** The number of draws. */
  readonly size: number;
  /** What the method reports: each path's outcome and the Pareto k (Pathfinder), the ascent's end (ADVI). */
  readonly notes: readonly string[];
  /** False when the method stopped before its convergence test passed (ADVI at its iteration limit): the draws may be far from the posterior. */
  readonly converged: boolean;
  /** Pathfinder's Pareto k of the pooled draws' importance weights: above 0.7 the approximation may be poor (NaN for the other methods, or when every weight is the same). */
  readonly paretoK: number;
  /** ADVI's fitted Gaussian and the course of its ascent (η's adaptation, the ELBO checks); undefined for the other methods. */
  readonly ascent: AdviResult | undefined;
  /** ADVI's mean as constrained values in `names` order (the file's first row); undefined for the other methods. */
  readonly center: Float64Array | undefined;
  private readonly parts: ApproximateFitParts;
  private readonly column = new Map<string, number>();

  constructor(parts: ApproximateFitParts) {
    this.parts = parts;
    this.method = parts.method;
    this.model = parts.model;
    this.seed = parts.seed;
    this.names = parts.names;
    this.size = parts.rows.length;
    this.notes = parts.notes;
    this.converged = parts.converged;
    this.paretoK = parts.paretoK ?? NaN;
    this.ascent = parts.ascent;
    this.center = parts.firstRow?.subarray(parts.lead.size);
    parts.names.forEach((n, k) => this.column.set(n, k));
  }

  /** The draws of one scalar or one element (`theta[3]`), or of a leading column (`log_p__`, `lp__`). */
  draws(name: string): Float64Array {
    const lead = this.parts.lead.get(name);
    if (lead !== undefined) return lead;
    const k = this.column.get(name);
    if (k !== undefined) return Float64Array.from(this.parts.rows, (r) => r[k]!);
    const elements = this.elementsOf(name);
    if (elements.length > 0) {
      throw new FitError(`fit.draws('${name}'): '${name}' has ${elements.length} elements; ask for one ('${elements[0]}') or use fit.variable('${name}')`);
    }
    throw new FitError(`fit.draws('${name}'): model '${this.model}' has no variable '${name}'; its variables are ${this.variableNames().join(", ")}`);
  }

  /** The draws of a whole variable with its shape, as one chain: draws × size values. */
  variable(name: string): VariableDraws {
    const shape = this.parts.shapes.get(name);
    if (shape === undefined) {
      throw new FitError(`fit.variable('${name}'): model '${this.model}' has no variable '${name}'; its variables are ${this.variableNames().join(", ")}`);
    }
    const columns = (shape.length === 0 ? [name] : this.elementsOf(name)).map((e) => this.column.get(e)!);
    const out = new Float64Array(this.size * columns.length);
    this.parts.rows.forEach((r, d) => columns.forEach((k, j) => (out[d * columns.length + j] = r[k]!)));
    return { name, shape, chains: [out] };
  }

  /** The names of the model's variables (parameters, then deterministics and generated quantities). */
  variableNames(): string[] {
    return [...this.parts.shapes.keys()];
  }

  /** Each element's mean, sd and 5 %, 50 %, 95 % quantiles over the draws (quantiles as R's type 7). */
  summary(): ApproximateSummaryRow[] {
    return this.names.map((name) => {
      const x = this.draws(name).sort();
      const n = x.length;
      const mean = x.reduce((a, b) => a + b, 0) / n;
      const sd = n > 1 ? Math.sqrt(x.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : NaN;
      return { name, mean, sd, q5: quantile7(x, 0.05), q50: quantile7(x, 0.5), q95: quantile7(x, 0.95) };
    });
  }

  /**
   * Writes the draws as ArviZ's InferenceData in one netCDF4 file at `path` (replaced), as one chain:
   * posterior, sample_stats (the leading columns under ArviZ's names: log_p, log_g, lp_approx, lp),
   * log_likelihood keyed by each observed variable's name (when the model observes something),
   * observed_data and constant_data, and the method as the file's inference_method. Resolves to the
   * path written. Only a fit made by approximate(model, data, options) knows its data.
   */
  async toInferenceData(path: string): Promise<string> {
    const { compiled, source } = this.parts;
    if (compiled === undefined || source === undefined) {
      throw new FitError(`fit.toInferenceData: this ${this.method} fit of '${this.model}' was not made from a model and its data; make it with approximate(model, data, options)`);
    }
    const columns = new Map<string, readonly Float64Array[]>([...this.parts.lead].map(([n, c]) => [n, [c]] as const));
    this.names.forEach((n, k) => columns.set(n, [Float64Array.from(this.parts.rows, (r) => r[k]!)]));
    // A model that reports its own log_lik keeps it, as the Fit does.
    if (compiled.logLik !== undefined && !this.names.some((n) => n === LOG_LIK_NAME || n.startsWith(`${LOG_LIK_NAME}[`))) {
      const evaluator = logLikEvaluator(compiled);
      const values = this.parts.rows.map((r) => Float64Array.from(evaluator.at(r.subarray(0, evaluator.parameterEntries))));
      evaluator.names.forEach((n, i) => columns.set(n, [Float64Array.from(values, (v) => v[i]!)]));
    }
    return writeFitInferenceData(path, { model: source.model, compiled, data: source.data, columns, method: this.method });
  }

  /** Writes `<method>.csv` into `dir` (made if missing) in CmdStan's layout, as `ppl <method>` writes it; returns its path. */
  writeCsv(dir: string): string {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${this.method}.csv`);
    const lead = [...this.parts.lead.keys()];
    const config: ConfigNode[] = [...this.parts.config, { key: "output", children: [{ key: "file", value: path }] }];
    const writer = writeStanCsv(fileSink(path), { config, parameters: this.names, samplerColumns: lead });
    try {
      const row = new Float64Array(lead.length + this.names.length);
      for (const line of this.parts.headComments ?? []) writer.writeComment(line);
      if (this.parts.firstRow !== undefined) writer.writeDraw(this.parts.firstRow);
      const leadColumns = lead.map((n) => this.parts.lead.get(n)!);
      this.parts.rows.forEach((r, d) => {
        leadColumns.forEach((c, k) => (row[k] = c[d]!));
        row.set(r, lead.length);
        writer.writeDraw(row);
      });
      for (const note of this.notes) writer.writeComment(note);
    } finally {
      writer.close({ warmup: 0, sampling: this.parts.seconds });
    }
    return path;
  }

  private elementsOf(name: string): string[] {
    return this.names.filter((n) => n.startsWith(`${name}[`));
  }
}

// The p-quantile of sorted x by linear interpolation between order statistics (R's type 7).
function quantile7(x: Float64Array, p: number): number {
  const h = (x.length - 1) * p;
  const lo = Math.floor(h);
  return x[lo]! + (h - lo) * (x[Math.min(lo + 1, x.length - 1)]! - x[lo]!);
}

/**
 * A finished (or stopped) run of a model, as a TypeScript user reads it: the draws of every
 * variable by name on the constrained scale, chain × draw, and what the CLI computes from them
 * (the summary table, the sampler's diagnostics, PSIS-LOO, Stan CSV files, ArviZ's InferenceData).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { samplerDiagnostics, type SamplerDiagnostics, type SamplerDraws } from "../diagnostics/sampler.ts";
import { summarize, type Summary } from "../diagnostics/summary.ts";
import { sampleConfig } from "../io/config.ts";
import { dataLayoutKeys } from "../io/data-layout.ts";
import { SAMPLER_COLUMNS } from "../io/sampler-columns.ts";
import { fileSink } from "../io/sink.ts";
import { StanCsvWriter } from "../io/stan-csv-writer.ts";
import { loo, type LooResult } from "../loo/loo.ts";
import { LOG_LIK_NAME, logLikEvaluator } from "../loo/pointwise-log-lik.ts";
import { relativeEff } from "../loo/relative-eff.ts";
import type { CompiledModel } from "../model/compile.ts";
import type { Model } from "../model/model.ts";
import type { ChainAdaptationResult, SampleResult } from "../sampler/result.ts";
import { stanNames } from "../model/stan-names.ts";
import { FitError } from "./fit-error.ts";
import type { VariableShape } from "./fit-generated.ts";
import { writeFitInferenceData } from "./fit-inference-data.ts";

/** One variable's draws with its shape: per chain, draw after draw, each draw's elements in row-major order. */
export interface VariableDraws {
  readonly name: string;
  /** The variable's shape ([] for a scalar). */
  readonly shape: readonly number[];
  /** Per chain: draws × size values (size = product of shape), one draw's elements after another. */
  readonly chains: readonly Float64Array[];
}

/** What a Fit is made from (see sampleModel); not for users to build. */
export interface FitParts {
  readonly model: Model;
  readonly compiled: CompiledModel;
  /** The data as given to sample (its fields go to observed_data and constant_data). */
  readonly data: Readonly<Record<string, unknown>>;
  readonly result: SampleResult;
  /** Column name (bracket names, then SAMPLER_COLUMNS) → per chain the kept draws. */
  readonly columns: ReadonlyMap<string, Float64Array[]>;
  /**
   * The variables after the model's parameters and deterministics, in column order (generated
   * quantities, predictive draws, log_lik), their columns in `columns`; none when left out.
   */
  readonly generated?: readonly VariableShape[];
  readonly maxDepth: number;
}

/** Options of fit.writeCsv. */
export interface WriteCsvOptions {
  /** Also write each draw's pointwise log-likelihood as columns log_lik.1 … log_lik.N, as `ppl sample --log-lik` does (false; a Fit sampled with { logLik: true } writes them anyway). */
  readonly logLik?: boolean;
}

/** The draws and diagnostics of a run of a model (what `sample(model, data, options)` resolves to). */
export class Fit {
  /** The model's name. */
  readonly model: string;
  /**
   * Every reported variable's element names in column order (mu, theta[1], …, then the generated
   * quantities, y_rep[…] and log_lik[…] where the run made them), without the sampler's `__` columns.
   */
  readonly names: readonly string[];
  /** Chains in the run. */
  readonly chains: number;
  /** Kept draws per chain (fewer than asked when the run was stopped). */
  readonly drawsPerChain: number;
  /** The seed the run used (random when none was given). */
  readonly seed: number;
  /** Whether the run was stopped (options.signal) before its end. */
  readonly aborted: boolean;
  /** Each chain's adapted step size and inverse metric. */
  readonly adaptation: readonly ChainAdaptationResult[];
  private readonly parts: FitParts;

  constructor(parts: FitParts) {
    this.parts = parts;
    const { compiled, result } = parts;
    this.model = compiled.name;
    this.names = [...compiled.constrainedNames(), ...(parts.generated ?? []).flatMap((g) => stanNames(g.name, g.shape))];
    this.chains = result.settings.chains;
    this.drawsPerChain = parts.columns.get(SAMPLER_COLUMNS[0])?.[0]?.length ?? 0;
    this.seed = result.settings.seed;
    this.aborted = result.aborted;
    this.adaptation = result.adaptation;
  }

  /** The draws of one scalar, one element (`theta[3]`, `y_rep[2]`, `log_lik[5]`) or a sampler column (`lp__`), as chain × draw. */
  draws(name: string): readonly Float64Array[] {
    const column = this.parts.columns.get(name);
    if (column !== undefined) return column;
    const elements = this.elementsOf(name);
    if (elements.length > 0) {
      throw new FitError(`fit.draws('${name}'): '${name}' has ${elements.length} elements; ask for one ('${elements[0]}') or use fit.variable('${name}')`);
    }
    throw new FitError(`fit.draws('${name}'): model '${this.model}' has no variable '${name}'; its variables are ${this.variableNames().join(", ")}`);
  }

  /** The draws of a whole variable (a scalar, vector, matrix…) with its shape. */
  variable(name: string): VariableDraws {
    const info = this.variableShapes().find((g) => g.name === name);
    if (info === undefined) {
      throw new FitError(`fit.variable('${name}'): model '${this.model}' has no variable '${name}'; its variables are ${this.variableNames().join(", ")}`);
    }
    const elements = info.shape.length === 0 ? [name] : this.elementsOf(name);
    const columns = elements.map((e) => this.parts.columns.get(e)!);
    const size = elements.length;
    const chains = Array.from({ length: this.chains }, (_, c) => {
      const out = new Float64Array(this.drawsPerChain * size);
      for (let d = 0; d < this.drawsPerChain; d++) for (let k = 0; k < size; k++) out[d * size + k] = columns[k]![c]![d]!;
      return out;
    });
    return { name, shape: info.shape, chains };
  }

  /** The names of the run's variables (parameters, deterministics, then generated quantities, predictive draws and log_lik where made). */
  variableNames(): string[] {
    return this.variableShapes().map((g) => g.name);
  }

  /** Every variable's summary (mean, sd, quantiles, ESS, R-hat, MCSE) and the run's warnings, as `ppl sample` prints them. */
  summary(): Summary {
    const parameters = new Map(this.names.map((n) => [n, this.parts.columns.get(n)!] as const));
    return summarize(parameters, { sampler: this.samplerDraws(), maxTreeDepth: this.parts.maxDepth });
  }

  /** Divergences, tree-depth hits and E-BFMI per chain. */
  diagnostics(): SamplerDiagnostics {
    return samplerDiagnostics(this.samplerDraws(), this.parts.maxDepth);
  }

  /** PSIS-LOO over the model's observations (every observed element is one point), as `ppl loo` computes it. */
  loo(): LooResult {
    const logLik = [...this.logLik().values()];
    return loo(logLik, { rEff: logLik.map((draws) => relativeEff(draws)) });
  }

  /**
   * Writes the run as ArviZ's InferenceData in one netCDF4 file at `path` (replaced), as `ppl export`
   * writes the CSV files of the same run: posterior, sample_stats (ArviZ's names), log_likelihood
   * keyed by each observed variable's name (when the model observes something),
   * posterior_predictive (of a Fit sampled with { predictive: true }: y_rep under the name y), observed_data (the observed
   * variables only) and constant_data (the other data, integers as int64). Resolves to the path
   * written; open it with `arviz.from_netcdf(path)`.
   */
  async toInferenceData(path: string): Promise<string> {
    const { model, compiled, data } = this.parts;
    const columns = new Map<string, readonly Float64Array[]>(this.parts.columns);
    // A model that reports its own log_lik keeps it, as `ppl sample --log-lik` refuses to shadow it.
    if (compiled.logLik !== undefined && !this.names.some((n) => n === LOG_LIK_NAME || n.startsWith(`${LOG_LIK_NAME}[`))) {
      for (const [name, draws] of this.logLik()) columns.set(name, draws);
    }
    return writeFitInferenceData(path, { model, compiled, data, columns });
  }

  /**
   * Writes one Stan CSV file a chain (chain-1.csv …) into `dir` (made if missing), as `ppl sample`
   * lays them out (the header records the data layout `ppl export` reads); returns their paths.
   */
  writeCsv(dir: string, options: WriteCsvOptions = {}): string[] {
    mkdirSync(dir, { recursive: true });
    const { result, model, compiled } = this.parts;
    const s = result.settings;
    const kept = this.names.some((n) => n.startsWith(`${LOG_LIK_NAME}[`));
    const logLik = options.logLik === true && !kept ? this.logLik() : new Map<string, Float64Array[]>();
    const names = [...this.names, ...logLik.keys()];
    const order = [...SAMPLER_COLUMNS.map((n) => this.parts.columns.get(n)!), ...this.names.map((n) => this.parts.columns.get(n)!), ...logLik.values()];
    return Array.from({ length: this.chains }, (_, c) => {
      const path = join(dir, `chain-${s.firstChain + c + 1}.csv`);
      const config = sampleConfig({
        model: this.model, numSamples: s.draws, numWarmup: s.warmup, adaptDelta: s.adaptDelta, maxDepth: this.parts.maxDepth,
        metric: s.metric === "dense" ? "dense_e" : "diag_e", numChains: this.chains, chainId: s.firstChain + c + 1, seed: s.seed, outputFile: path,
        extra: dataLayoutKeys(model, compiled),
      });
      const writer = new StanCsvWriter(fileSink(path), { config, parameters: names });
      const a = this.adaptation[c];
      if (a !== undefined) writer.writeAdaptation({ stepsize: a.stepSize, inverseMetric: inverseMetricRows(a) });
      const row = new Float64Array(order.length);
      for (let d = 0; d < this.drawsPerChain; d++) {
        for (let k = 0; k < order.length; k++) row[k] = order[k]![c]![d]!;
        writer.writeDraw(row);
      }
      writer.close(result.timing.warmupSeconds + result.timing.samplingSeconds > 0 ? { warmup: result.timing.warmupSeconds, sampling: result.timing.samplingSeconds } : undefined);
      return path;
    });
  }

  private variableShapes(): readonly VariableShape[] {
    return [...this.parts.compiled.generatedInfo, ...(this.parts.generated ?? [])];
  }

  // Each observed element's log density at every draw, by column name (log_lik[1] …), each [chain][draw]: what loo() and `ppl sample --log-lik` compute.
  private logLik(): Map<string, Float64Array[]> {
    const evaluator = logLikEvaluator(this.parts.compiled);
    const params = this.names.slice(0, evaluator.parameterEntries).map((n) => this.parts.columns.get(n)!);
    const logLik = new Map(evaluator.names.map((n) => [n, Array.from({ length: this.chains }, () => new Float64Array(this.drawsPerChain))] as const));
    const points = [...logLik.values()];
    const row = new Float64Array(params.length);
    for (let c = 0; c < this.chains; c++) {
      for (let d = 0; d < this.drawsPerChain; d++) {
        for (let k = 0; k < params.length; k++) row[k] = params[k]![c]![d]!;
        const values = evaluator.at(row);
        for (let i = 0; i < points.length; i++) points[i]![c]![d] = values[i]!;
      }
    }
    return logLik;
  }

  private samplerDraws(): SamplerDraws {
    const { columns } = this.parts;
    return { divergent: columns.get("divergent__")!, treedepth: columns.get("treedepth__")!, energy: columns.get("energy__")! };
  }

  private elementsOf(name: string): string[] {
    return this.names.filter((n) => n.startsWith(`${name}[`));
  }
}

// The inverse metric as the CSV's adaptation block lists it: a diagonal, or the rows of a dense matrix.
function inverseMetricRows(a: ChainAdaptationResult): number[] | number[][] {
  const values = Array.from(a.invMetric);
  if (a.metric !== "dense") return values;
  const n = Math.round(Math.sqrt(values.length));
  return Array.from({ length: n }, (_, i) => values.slice(i * n, (i + 1) * n));
}

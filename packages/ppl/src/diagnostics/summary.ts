import { type DrawSource, drawsSource, isDrawSource } from "./draw-source.ts";
import type { Draws } from "./draws.ts";
import { essBasicOf, essBulkOf, essQuantileOf, essTailFrom } from "./ess.ts";
import { madOf } from "./mad.ts";
import { mcseMeanFrom, mcseQuantileFrom, mcseSdOf } from "./mcse.ts";
import { ParameterDraws } from "./parameter-draws.ts";
import type { ParameterSummary } from "./parameter-summary.ts";
import { rhatBasicOf, rhatOf } from "./rhat.ts";
import { type SamplerDiagnostics, type SamplerDraws, samplerDiagnosticsSteps } from "./sampler.ts";
import { SummaryBuffers, summarizeSourceSteps } from "./streamed-summary.ts";
import { finish } from "./steps.ts";
import { type DiagnosticWarning, nonFiniteWarning, nonFiniteWarnings, parameterWarnings, samplerWarnings } from "./warnings.ts";

/** Summary of a whole run: per-parameter statistics, sampler diagnostics, warnings. */
export interface Summary {
  readonly chains: number;
  readonly drawsPerChain: number;
  readonly parameters: ParameterSummary[];
  readonly sampler?: SamplerDiagnostics;
  readonly warnings: DiagnosticWarning[];
}

/** Options for `summarize`. */
export interface SummarizeOptions {
  /** Sampler columns for divergence, tree-depth and E-BFMI diagnostics. */
  readonly sampler?: SamplerDraws;
  /** Maximum tree depth the sampler ran with (default 10, Stan's default). */
  readonly maxTreeDepth?: number;
}

/** Every statistic of one parameter's draws ([chain][draw], or a DrawSource that reads them). */
export function summarizeParameter(name: string, draws: Draws | DrawSource): ParameterSummary {
  return finish(summarizeOne(name, draws)).summary;
}

// A parameter's statistics and its non-finite draws, by the route that holds the least: the
// streamed one (see streamed-summary.ts), or, when more than half the draws are infinite, all
// draws in memory.
function* summarizeOne(name: string, draws: Draws | DrawSource, buffers?: SummaryBuffers): Generator<void, { summary: ParameterSummary; warning: DiagnosticWarning | null }, void> {
  const source = isDrawSource(draws) ? draws : drawsSource(draws);
  const streamed = yield* summarizeSourceSteps(name, source, buffers);
  if (streamed !== null) return { summary: streamed.summary, warning: nonFiniteWarning(name, streamed.nonFinite) };
  const all = isDrawSource(draws) ? readAll(draws) : draws;
  return { summary: summarizeInMemory(name, all), warning: nonFiniteWarnings([[name, [...all]]])[0] ?? null };
}

// Every chain of a source, read whole.
function readAll(source: DrawSource): Float64Array[] {
  return Array.from({ length: source.chains }, (_, c) => {
    const out = new Float64Array(source.iterations);
    source.read(c, 0, out);
    return out;
  });
}

/** Every statistic of one parameter from its draws held in memory, through ParameterDraws' shared intermediates (what `summarizeParameter` gives, holding about ten copies of the draws). */
export function summarizeInMemory(name: string, draws: Draws): ParameterSummary {
  // One set of intermediates for all statistics: the sort, the split chains, the rank
  // normalizations, and the ESS that two statistics each need (basic ESS for ess_basic and
  // mcse_mean, the quantile ESS for ess_tail and mcse_q5/q95).
  const p = ParameterDraws.of(draws);
  const essBasic = essBasicOf(p);
  const essQ05 = essQuantileOf(p, 0.05);
  const essQ95 = essQuantileOf(p, 0.95);
  const median = p.quantile(0.5);
  return {
    name,
    mean: p.mean(),
    sd: p.sd(),
    median,
    mad: madOf(p),
    q5: p.quantile(0.05),
    q50: median,
    q95: p.quantile(0.95),
    rhat: rhatOf(p),
    rhat_basic: rhatBasicOf(p),
    ess_bulk: essBulkOf(p),
    ess_tail: essTailFrom(essQ05, essQ95),
    ess_basic: essBasic,
    mcse_mean: mcseMeanFrom(p, essBasic),
    mcse_sd: mcseSdOf(p),
    mcse_q5: mcseQuantileFrom(p, 0.05, essQ05),
    mcse_q95: mcseQuantileFrom(p, 0.95, essQ95),
  };
}

/**
 * Summarizes every parameter (name → [chain][draw]) and, when sampler columns
 * are given, the sampler; collects warnings at the usual thresholds.
 */
export function summarize(
  parameters: Readonly<Record<string, Draws>> | ReadonlyMap<string, Draws>,
  options: SummarizeOptions = {},
): Summary {
  const names = parameters instanceof Map ? [...parameters.keys()] : Object.keys(parameters);
  const get = parameters instanceof Map ? (n: string) => parameters.get(n)! : (n: string) => (parameters as Readonly<Record<string, Draws>>)[n]!;
  return summarizeEach(names, get, options);
}

/**
 * `summarize` over parameters loaded one at a time by `load` (e.g. from a file): each one's draws
 * are dropped before the next is loaded; a DrawSource is read a chain's stretch at a time, so that
 * the memory used is about one parameter's draws, sorted (see streamed-summary.ts).
 */
export function summarizeEach(names: readonly string[], load: (name: string) => Draws | DrawSource, options: SummarizeOptions = {}): Summary {
  const steps = summarizeSteps(names, load, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * `summarizeEach` in steps: the generator yields each parameter's name once it is summarized, and
 * null between the steps of one parameter's work (see summarizeSourceSteps), and returns the
 * summary, so that a caller can stop at any of them (a signal, a deadline) or let other work run.
 */
export function* summarizeSteps(names: readonly string[], load: (name: string) => Draws | DrawSource, options: SummarizeOptions = {}): Generator<string | null, Summary, void> {
  const summaries: ParameterSummary[] = [];
  const nonFinite: DiagnosticWarning[] = [];
  let chains = -1;
  let drawsPerChain = 0;
  // One set of arrays for every parameter (they have as many draws each).
  let buffers: SummaryBuffers | undefined = new SummaryBuffers();
  for (const name of names) {
    const draws = load(name);
    const one = summarizeOne(name, draws, buffers);
    let r = one.next();
    for (; !r.done; r = one.next()) yield null;
    const { summary, warning } = r.value;
    summaries.push(summary);
    if (warning !== null) nonFinite.push(warning);
    if (chains < 0) {
      chains = isDrawSource(draws) ? draws.chains : draws.length;
      drawsPerChain = isDrawSource(draws) ? draws.iterations : (draws[0]?.length ?? 0);
    }
    yield name;
  }
  // Given back before the sampler's columns are read (a chain of each at a time).
  buffers = undefined;
  if (chains < 0) chains = options.sampler?.energy.length ?? 0;
  const warnings = [...nonFinite, ...parameterWarnings(summaries, chains)];
  if (options.sampler === undefined) return { chains, drawsPerChain, parameters: summaries, warnings };
  const diagnostics = samplerDiagnosticsSteps(options.sampler, options.maxTreeDepth ?? 10);
  let d = diagnostics.next();
  for (; !d.done; d = diagnostics.next()) yield null;
  const sampler = d.value;
  return { chains, drawsPerChain, parameters: summaries, sampler, warnings: [...warnings, ...samplerWarnings(sampler)] };
}

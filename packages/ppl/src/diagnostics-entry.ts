// @ppl/ppl/diagnostics: the diagnostics and the Stan CSV reading of @ppl/ppl without its models,
// sampler and @ppl/tensor, for programs that only read draws: `ppl summary` loads this entry alone,
// about a third of the whole package's loading time. A subset of @ppl/ppl's API, the same
// functions (one module instance: the entries share their chunks).
export {
  type Draws,
  type ParameterSummary,
  type Summary,
  type SummarizeOptions,
  type SamplerDraws,
  type SamplerDiagnostics,
  type DiagnosticWarning,
  type WarningKind,
  summarize,
  summarizeEach,
  summarizeSteps,
  type DrawSource,
  drawsSource,
  mean,
  sd,
  quantile,
  median,
  mad,
  essBulk,
  essTail,
  essBasic,
  rhat,
  rhatBasic,
  mcseMean,
  mcseSd,
  mcseQuantile,
  THRESHOLDS,
  LISTED_CHAINS,
  ESS_RULE,
  minimumEss,
} from "./diagnostics/index.ts";
export { type StanCsv, type ReadAdaptation, type ReadTiming, readStanCsv } from "./io/stan-csv-reader.ts";
export { type StanCsvHead, StanCsvParser, parseStanCsvRow } from "./io/stan-csv-parser.ts";
export { type ChainDraws, collectChains } from "./io/chains.ts";
export { type ParameterSummaryJson, type SamplerSummaryJson, type SummaryJson, summaryToJson } from "./io/summary-json.ts";

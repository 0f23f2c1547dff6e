export { toStanCsvName, fromStanCsvName } from "./names.ts";
export { formatNumber, formatFourDigits, parseNumber } from "./number-format.ts";
export { type ConfigNode, type SampleSettings, SAMPLE_DEFAULTS, sampleConfig, renderConfig } from "./config.ts";
export { type TextSink, type StringSink, fileSink, stringSink } from "./sink.ts";
export {
  type StanCsvHeader,
  type Adaptation,
  type Timing,
  StanCsvWriter,
  writeStanCsv,
} from "./stan-csv-writer.ts";
export { SAMPLER_COLUMNS, type SamplerColumn, samplerValues } from "./sampler-columns.ts";
export { type StanCsv, type ReadAdaptation, type ReadTiming, readStanCsv } from "./stan-csv-reader.ts";
export { type StanCsvHead, StanCsvParser, parseStanCsvRow } from "./stan-csv-parser.ts";
export { type ChainDraws, collectChains, chainsFromColumns } from "./chains.ts";
export {
  type ParameterSummaryJson,
  type SamplerSummaryJson,
  type SummaryJson,
  SAMPLER_BLOCK_KEY,
  summaryToJson,
  writeSummaryJson,
} from "./summary-json.ts";
export {
  type InferenceVariable, type InferenceGroup, APPROXIMATION_STATS_NAMES, SAMPLE_STATS_NAMES, splitName, variablesOf, inferenceGroup, observedTermsOf,
  runGroups, dataGroups,
} from "./inference-data.ts";
export { type GroupAttributes, type ReadVariable, writeNetcdf, readNetcdf, inferenceDataAttributes } from "./netcdf.ts";
export { type ObservedTerm, type DataLayout, type LayoutKeys, dataLayoutKeys, dataLayoutOf, observedTerms, layoutNodes, readDataLayout } from "./data-layout.ts";
export { hashObserved } from "./observed-hash.ts";

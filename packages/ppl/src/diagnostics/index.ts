export { type Draws, type ChainMatrix, toChainMatrix } from "./draws.ts";
export { mean, variance, sd } from "./moments.ts";
export { quantile, median } from "./quantile.ts";
export { mad } from "./mad.ts";
export { averageRanks, rankNormalize } from "./rank-normalize.ts";
export { splitChains } from "./split-chains.ts";
export { autocovariance } from "./autocovariance.ts";
export { essOfMatrix, essBasic, essBulk, essTail, essQuantile, essMean } from "./ess.ts";
export { rhatOfMatrix, rhat, rhatBasic, foldDraws } from "./rhat.ts";
export { mcseMean, mcseSd, mcseQuantile } from "./mcse.ts";
export { normalQuantile, betaQuantile } from "./distribution-quantiles.ts";
export {
  type SamplerDraws,
  type SamplerDiagnostics,
  samplerDiagnostics,
  ebfmi,
  countNonZero,
  countTreeDepthHits,
} from "./sampler.ts";
export { type DiagnosticWarning, type WarningKind, THRESHOLDS, LISTED_CHAINS, ESS_RULE, minimumEss, nonFiniteWarnings, nonFiniteWarning, parameterWarnings, samplerWarnings } from "./warnings.ts";
export type { ParameterSummary } from "./parameter-summary.ts";
export { type Summary, type SummarizeOptions, summarizeParameter, summarizeInMemory, summarize, summarizeEach, summarizeSteps } from "./summary.ts";
export { type DrawSource, drawsSource, isDrawSource } from "./draw-source.ts";
export { rhatNested, rhatNestedOfMatrix, contiguousSuperchains, SuperchainError } from "./rhat-nested.ts";

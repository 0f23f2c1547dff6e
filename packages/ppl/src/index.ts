/**
 * `@ppl/ppl`: the user API — models and data, distributions, constraints, sampling, diagnostics, Stan
 * CSV/JSON, the log density, PSIS-LOO, generated quantities with predictive and prior draws.
 * The transition runner interface a GPU sampler plugs into, the run plan and the placement hooks
 * are in `@ppl/ppl/runner`; the inference layer's methods in `@ppl/ppl/inference`. The sampler's
 * and diagnostics' building blocks, the random streams and the posteriordb runner are in
 * `@ppl/ppl/internals`, for tests, benchmarks and packages that extend the sampler.
 *
 * @module \@ppl/ppl
 */
// Models and data
export {
  ModelError, DataError, data, model, isModel, compileModel, unusedDataKeys, type DataSpec, type DataField, type DataKind,
  type DataValues, type DataBounds, type Size, type ArrayOptions, type CheckedData, type Model,
  type ModelBuilder, type ModelDefinition, type ParamOptions, type CompiledModel, type ParamInfo,
  type GeneratedInfo, type GeneratedDraw, type GeneratedValue, type GeneratedFunction, type GeneratedOptions,
  type NestedNumbers,
} from "./model/index.ts";
// Distributions
export {
  normal, halfNormal, studentT, halfStudentT, cauchy, halfCauchy, laplace, logistic, logNormal, exponential,
  gamma, inverseGamma, beta, uniform, weibull, chiSquared, truncatedNormal, truncated, skewNormal, bernoulli,
  bernoulliLogit, binomial, binomialLogit, betaBinomial, poisson, poissonLog, negativeBinomial,
  negativeBinomial2, categorical, categoricalLogit, multinomial, dirichlet, multivariateNormal,
  multivariateNormalPrecision, multivariateNormalCholesky, lkjCholesky, gaussianRandomWalk, mixture, custom,
  orderedLogistic, orderedProbit, multiStudentT, multiStudentTCholesky, wishart, wishartCholesky, inverseWishart,
  inverseWishartCholesky, lkjCorr, vonMises, pareto, paretoType2, gumbel, frechet, rayleigh, expModNormal,
  skewDoubleExponential, inverseChiSquared, scaledInverseChiSquared, logLogistic, betaProportion, discreteUniform,
  hypergeometric, betaNegativeBinomial, zeroInflatedPoisson, zeroInflatedNegativeBinomial, hurdlePoisson,
  hurdleNegativeBinomial, zeroInflatedPoissonLogit, zeroInflatedNegativeBinomialLogit, hurdlePoissonLogit,
  hurdleNegativeBinomialLogit, dirichletMultinomial, poissonLogNormal, poissonBinomial, multiGP, multiGPCholesky,
  matrixNormalPrecision, lkjCov,
  type Distribution, type Support, type Rng, type TruncationBounds, type CustomOptions, type NodeValues, type ValuesAt,
  type BetaBinomialOptions, type BetaNegativeBinomialOptions,
} from "./distributions/index.ts";
export { philoxRng } from "./random/index.ts";
// Constraints (transforms)
export {
  real, lower, positive, upper, interval, unitInterval, ordered, positiveOrdered, simplex, unitVector,
  choleskyCorr, covMatrix, choleskyFactorCov, corrMatrix, offsetMultiplier, sumToZero, rowStochastic, columnStochastic,
  type Transform, type Constraint,
} from "./transforms/index.ts";
// Sampling
export {
  sampleAsync, SamplingRun,
  prestartSamplerThreads, stopSamplerThreads, findStuckChains, samplingEvidence, stuckWarning, reinitialisedNote, type StuckChain, type ChainWindowEvidence, type Reinitialisation,
  InitializationError, StepSizeError, AdaptationError, SamplerOptionError, PlacementError, Metric, type BackendRequest,
  type BatchedDensity, type SampleOptions, type SampleResult, type ChainStats, type ChainAdaptationResult,
  type DrawInfo, type ResolvedSampleSettings, type SamplerKind, type MetricKind,
  type RunLengthOptions, type StartOptions, type TransitionOptions, type AdaptationOptions, type OutputOptions, type PlacementOptions,
  type SamplingMethod, type AdaptationMethod, type MethodSettings,
} from "./sampler/index.ts";
// Checkpoints of a run (bit-exact text), to resume it with SampleOptions.resume
export { encodeCheckpoint, decodeCheckpoint, writeCheckpointFile, readCheckpointFile, type Checkpoint, type CheckpointOptions } from "./sampler/index.ts";
// Sampling a model with its data: a Fit of named, constrained draws (`sample` also takes a batched density)
export {
  sample, sampleModel, Fit, FitError, type FitOptions, type VariableDraws, type FitParts, type WriteCsvOptions, type GeneratedColumnOptions, type VariableShape,
} from "./fit/index.ts";
// Approximating a model's posterior with its data (Laplace, Pathfinder, ADVI): an ApproximateFit of named, constrained draws
export {
  approximate, approximateCompiled, approximateTarget, approximationTarget, ApproximateFit, approximationConfig, runConfig, laplaceMode, laplaceDraws, randomInitialPoint, pathfinderNotes,
  roundSizes, approximationBackend, type ApproximationBackend, type ApproximationBackendOptions, type ApproximateOptions, type ApproximateCommonOptions, type LaplaceOptions, type PathfinderModelOptions, type VariationalModelOptions,
  type ApproximationInputs, type ApproximationTarget, type MethodDraws, type ApproximationSource, type ApproximateFitParts, type ApproximateSummaryRow, type ApproximationMethod,
  type PathfinderSettings, type ApproximationSettings,
} from "./fit/index.ts";
// The posterior mode of a model with its data (L-BFGS, BFGS, Newton): a ModeFit of named, constrained values
export { optimize, optimizeTarget, ModeFit, OPTIMIZE_DEFAULTS, type OptimizeModelOptions, type VariableValue } from "./fit/index.ts";
// Why a log density is not finite at a point (the message of an initialization that failed)
export { nonFiniteTerm, type NonFiniteTerm } from "./model/explain-density.ts";
export { lastInitialPoint } from "./sampler/last-initial-point.ts";
// Diagnostics
export {
  mean, variance, sd, quantile, median, mad, autocovariance, averageRanks, rankNormalize, essBasic, essBulk, essTail, essQuantile, essMean, rhat,
  rhatBasic, mcseMean, mcseSd, mcseQuantile, samplerDiagnostics, ebfmi, THRESHOLDS, LISTED_CHAINS, ESS_RULE, minimumEss, summarize, type Draws,
  type ChainMatrix, type SamplerDraws, type SamplerDiagnostics, type DiagnosticWarning, type WarningKind,
  type ParameterSummary, type Summary, type SummarizeOptions,
} from "./diagnostics/index.ts";
// Nested R-hat over superchains (many short chains, groups started from one point)
export { rhatNested, rhatNestedOfMatrix, contiguousSuperchains, SuperchainError } from "./diagnostics/index.ts";
// Stan CSV and JSON
export {
  toStanCsvName, fromStanCsvName, formatNumber, formatFourDigits, parseNumber, SAMPLE_DEFAULTS, sampleConfig, renderConfig,
  fileSink, stringSink, StanCsvWriter, writeStanCsv, SAMPLER_COLUMNS, samplerValues, readStanCsv, StanCsvParser, parseStanCsvRow, type StanCsvHead,
  collectChains, chainsFromColumns, SAMPLER_BLOCK_KEY, summaryToJson, writeSummaryJson, type ConfigNode,
  type SampleSettings, type TextSink, type StringSink, type StanCsvHeader, type Adaptation, type Timing, type SamplerColumn,
  type StanCsv, type ReadAdaptation, type ReadTiming, type ChainDraws, type ParameterSummaryJson,
  type SamplerSummaryJson, type SummaryJson,
} from "./io/index.ts";
// ArviZ's InferenceData as netCDF4 (fit.toInferenceData, ppl export), and the data layout a CSV header records for it
export {
  APPROXIMATION_STATS_NAMES, SAMPLE_STATS_NAMES, splitName, variablesOf, inferenceGroup, observedTermsOf, runGroups, dataGroups,
  writeNetcdf, readNetcdf, inferenceDataAttributes, dataLayoutKeys, dataLayoutOf, observedTerms, layoutNodes, readDataLayout, hashObserved,
  type InferenceVariable, type InferenceGroup, type GroupAttributes, type ReadVariable, type ObservedTerm, type DataLayout, type LayoutKeys,
} from "./io/index.ts";
// Log density
export {
  modelDensity, gradientGraph, type ModelDensity, type ModelDensityOptions, type GradientGraph,
  type GradientGraphOptions,
} from "./density/index.ts";
// PSIS-LOO and the pointwise log-likelihood
export {
  psis, relativeEff, PARETO_K_THRESHOLDS, paretoKCategory, paretoKCounts,
  paretoKWarnings, loo, looCompare, looPit, dkwBand, ksUniform, logLikEvaluator, pointwiseLogLik, LOG_LIK_NAME, type GpdFit,
  type LooPitOptions, type LooPitResult,
  type PsisResult, type ParetoKCategory, type ParetoKCounts, type LooOptions, type LooPointwise,
  type LooResult, type PointwiseLogLik, type LooCompareRow, type LogLikEvaluator,
} from "./loo/index.ts";
// Generated quantities, predictive and prior draws
export {
  generatedEvaluator, predictiveNames, PREDICTIVE_SUFFIX, priorSampler, type GeneratedEvaluator,
  type GeneratedEvaluatorOptions, type PriorSampler,
} from "./generate/index.ts";

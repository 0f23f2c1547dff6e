export * from "./model/index.ts";
export * from "./distributions/index.ts";
export * from "./transforms/index.ts";
export * from "./sampler/index.ts";
export * from "./random/index.ts";
export * from "./diagnostics/index.ts";
export * from "./io/index.ts";
export * from "./density/index.ts";
export { failureLines, runPosterior, type PosteriorReport, type PosteriorSettings, type RunPosteriorOptions } from "./posteriordb/index.ts";
export {
  gpdFit, psis, psisTailLength, relativeEff, loo, looCompare, paretoKCategory, paretoKCounts, paretoKWarnings, PARETO_K_THRESHOLDS,
  type GpdFit, type PsisResult, type LooOptions, type LooPointwise, type LooResult, type PointwiseLogLik, type LooCompareRow,
  type ParetoKCategory, type ParetoKCounts, logLikEvaluator, pointwiseLogLik, LOG_LIK_NAME, type LogLikEvaluator,
} from "./loo/index.ts";

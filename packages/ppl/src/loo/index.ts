export { gpdFit, type GpdFit } from "./gpd-fit.ts";
export { psis, psisTailLength, MIN_TAIL_LENGTH, type PsisResult } from "./psis.ts";
export { relativeEff, fftNextGoodSize } from "./relative-eff.ts";
export {
  PARETO_K_THRESHOLDS, paretoKCategory, paretoKCounts, paretoKWarnings, type ParetoKCategory, type ParetoKCounts,
} from "./pareto-k.ts";
export { loo, type LooOptions, type LooPointwise, type LooResult, type PointwiseLogLik } from "./loo.ts";
export { looCompare, type LooCompareRow } from "./loo-compare.ts";
export { looPit, dkwBand, ksUniform, type LooPitOptions, type LooPitResult } from "./loo-pit.ts";
export { logLikEvaluator, pointwiseLogLik, LOG_LIK_NAME, type LogLikEvaluator } from "./pointwise-log-lik.ts";

export { sample } from "./sample.ts";
export { sampleModel, type FitOptions } from "./sample-model.ts";
export { Fit, type VariableDraws, type FitParts, type WriteCsvOptions } from "./fit.ts";
export type { GeneratedColumnOptions, VariableShape } from "./fit-generated.ts";
export { FitError } from "./fit-error.ts";
export { approximate, approximateCompiled, approximateTarget, pathfinderNotes, roundSizes } from "./approximate.ts";
export { approximationBackend, type ApproximationBackend, type ApproximationBackendOptions } from "./approximation-placement.ts";
export {
  approximationTarget, type ApproximateOptions, type ApproximateCommonOptions, type LaplaceOptions, type PathfinderModelOptions, type VariationalModelOptions,
  type ApproximationInputs, type ApproximationTarget, type MethodDraws, type ApproximationSource,
} from "./approximate-options.ts";
export { ApproximateFit, type ApproximateFitParts, type ApproximateSummaryRow, type ApproximationMethod } from "./approximate-fit.ts";
export { approximationConfig, runConfig, OPTIMIZE_DEFAULTS, type PathfinderSettings, type ApproximationSettings } from "./approximation-config.ts";
export { laplaceMode, laplaceDraws, logDensities } from "./laplace-fit.ts";
export { randomInitialPoint } from "./initial-point.ts";
export { optimize, optimizeTarget, type OptimizeModelOptions } from "./optimize-model.ts";
export { ModeFit, type VariableValue } from "./mode-fit.ts";

// @ppl/ppl/internals: the building blocks under the user API (NUTS's integrator, termination and
// proposal steps, warmup's adaptation, the Philox streams, diagnostics' intermediate steps, the
// posteriordb runner), for tests, benchmarks and packages that extend the sampler. Not a stable API.
// Models and data
export {
  describeField, checkData, stanNames, flattenStanOrder, copyInStanOrder, type CheckDataOptions, type RecordedModel,
  type DeclaredParam, type DeclaredObservation, type DeclaredQuantity,
} from "./model/index.ts";
// The density on the compiled CPU backend, with the executable it compiled
export { recordedDensity, type RecordedDensity } from "./density/recorded-density.ts";
// Distributions
export {
  isDistribution, isNodeValues, sampleToShape, lkjLogConstant, gammaVariate, betaVariate, poissonVariate, binomialVariate,
  logGammaVariate, categoricalVariate,
} from "./distributions/index.ts";
export { isSymmetricPositiveDefinite } from "./distributions/dense.ts";
// Constraints (transforms)
export {
  isConstraint, constraintOfSupport,
} from "./transforms/index.ts";
// Sampling
export {
  resolveSettings, leapfrogBegin, leapfrogEnd, hamiltonian, integrate, noUTurn, initTermination, resetTermination,
  addLeaf, mergedTrajectoryContinues, logAddExp, uniformAcceptProbability, biasedAcceptProbability, driveBatch,
  chainContext, drawMomentum, rowCopy, saveRow, restoreRow, trialStorage, NutsTransition, defaultNutsSettings, NutsPhase, initNuts,
  nutsStep, beginTransition, treeContinues, beginSubtree, leapfrogDrift, endLeaf, mergeSubtree, endTransition,
  acceptStatistic, HmcTransition, InitialPointSearch, MAX_INIT_ATTEMPTS, StepSizeSearch,
  DualAveraging, defaultDualAveraging, WelfordDiag, WelfordDense, regularize, WindowSchedule, defaultWindows,
  windowEnds, ChainAdaptation, type PhasePoint, type GradientStepper, type Transition, type TransitionStats,
  type ChainSlot, type ChainContext, type RowCopy, type TrialStorage, type TerminationState, type NutsSettings, type NutsContext,
  type NutsState, type HmcSettings, type WindowSettings,
} from "./sampler/index.ts";
// Random streams
export {
  philox4x32, mulhi32, mullo32, uniformFromWords, boxMullerCos, boxMullerSin, exponentialFromUniform,
  Purpose, seedKey, streamBlock, streamUniform, streamUniforms, streamNormals, streamExponentials,
  StreamRng, streamRng, type SeedKey,
} from "./random/index.ts";
export { philoxGraph, uniformGraph, normalsGraph, type StreamParams } from "./random/philox-graph.ts";
// Diagnostics
export {
  toChainMatrix, splitChains, essOfMatrix, rhatOfMatrix,
  foldDraws, normalQuantile, betaQuantile, countNonZero, countTreeDepthHits, parameterWarnings,
  samplerWarnings, summarizeParameter,
} from "./diagnostics/index.ts";
// posteriordb
export {
  runPosterior, failureLines, type PosteriorSettings, type PosteriorReport, type RunPosteriorOptions,
  loadModel, loadPosterior, posteriorSettings, DEFAULT_SEED,
} from "./posteriordb/index.ts";
// PSIS-LOO and the pointwise log-likelihood
export {
  gpdFit, psisTailLength,
} from "./loo/index.ts";
// Generated quantities, predictive and prior draws
export {
  DrawValues,
} from "./generate/index.ts";

export type { BatchedDensity } from "./density.ts";
export { sample, sampleAsync } from "./sample.ts";
export { SamplingRun } from "./sampling-run.ts";
export { encodeCheckpoint, decodeCheckpoint, writeCheckpointFile, readCheckpointFile, type Checkpoint, type CheckpointOptions } from "./checkpoint.ts";
export { resolveSettings } from "./settings.ts";
export type {
  SamplerKind, ResolvedSampleSettings, SettingsOptions, RunLengthOptions, StartOptions, TransitionOptions, AdaptationOptions,
} from "./settings.ts";
export type { SampleOptions, OutputOptions, PlacementOptions, RunnerFallback, PendingRunner, ReadyRunner } from "./options.ts";
export type { SampleResult, ChainStats, ChainAdaptationResult, DrawInfo, FallbackDecision, PendingRunnerDecision } from "./result.ts";
export type { RunState, ChainState } from "./run-state.ts";
export type { SamplingMethod, AdaptationMethod, MethodSettings } from "./methods/method.ts";
export type { RunnerStats, RunnerCost, TransitionRunner, TransitionRunnerContext, TransitionRunnerFactory, PlannedRunner, PreparedPlan } from "./transition-runner.ts";
export { planOwnedOptions } from "./transition-runner.ts";
export { registerTransitionRunner, prepareTransitionRunner, transitionRunnerNames } from "./runner-registry.ts";
export { prestartSamplerThreads, stopSamplerThreads } from "./threads/pool.ts";
export type { RunPlan, PreparedRunner, RunnerProvider } from "./runner-registry.ts";
export { cpuGradientLowerBound, cpuIsFaster, DEFAULT_MARGIN, dataElementCount, decideFallback, fallbackIteration, trialSecondsPerGradient } from "./fallback.ts";
export { reevaluated } from "./run-state.ts";
export { firstMetricUpdate, runnerBlock, runSecondsPerGradient } from "./pending-runner.ts";
export type { TrialBlock } from "./pending-runner.ts";
export { splitRunner, chainGroupSizes } from "./split-runner.ts";
export { PlacementError, registerRunPlacement, runPlacement, runLayout, placedSampleOptions } from "./placement.ts";
export type {
  BackendRequest, OptionSpelling, PlacementRequest, PlaceRunOptions, BatchedRounds, Placement, DeviceGroup, PlacedPlan, PendingGpu, PreparedRun, RunPlacement, PendingGpuHooks,
} from "./placement.ts";
export { InitializationError, StepSizeError, AdaptationError, SamplerOptionError } from "./errors.ts";
export { Metric } from "./metric.ts";
export type { MetricKind } from "./metric.ts";
export { leapfrogBegin, leapfrogEnd, hamiltonian, integrate } from "./integrator.ts";
export type { PhasePoint } from "./integrator.ts";
export { noUTurn, initTermination, resetTermination, addLeaf, mergedTrajectoryContinues } from "./termination.ts";
export type { TerminationState } from "./termination.ts";
export { logAddExp, uniformAcceptProbability, biasedAcceptProbability } from "./proposal.ts";
export { ChainBatch, driveBatch } from "./batch.ts";
export type { GradientStepper } from "./batch.ts";
export { chainContext, drawMomentum, rowCopy, saveRow, restoreRow, trialStorage } from "./transition.ts";
export type { Transition, TransitionStats, ChainSlot, ChainContext, RowCopy, TrialStorage } from "./transition.ts";
export {
  NutsTransition,
  defaultNutsSettings,
  NutsPhase,
  initNuts,
  nutsStep,
  beginTransition,
  treeContinues,
  beginSubtree,
  leapfrogDrift,
  endLeaf,
  mergeSubtree,
  endTransition,
  acceptStatistic,
} from "./nuts.ts";
export type { NutsSettings, NutsContext, NutsState } from "./nuts.ts";
export { HmcTransition } from "./hmc.ts";
export type { HmcSettings } from "./hmc.ts";
export { InitialPointSearch, MAX_INIT_ATTEMPTS } from "./initialize.ts";
export { StepSizeSearch } from "./warmup/stepsize-search.ts";
export { DualAveraging, defaultDualAveraging } from "./warmup/dual-averaging.ts";
export type { DualAveragingSettings, DualAveragingState } from "./warmup/dual-averaging.ts";
export { WelfordDiag, WelfordDense, regularize } from "./warmup/welford.ts";
export { WindowSchedule, defaultWindows, windowEnds } from "./warmup/windows.ts";
export type { WindowSettings } from "./warmup/windows.ts";
export { ChainAdaptation } from "./warmup/adaptation.ts";
export {
  findStuckChains, samplingEvidence, WindowEvidence, chainsToReinitialise, reinitialisedNote, stuckWarning,
  defaultStuckChainSettings, defaultReinitialisationPolicy,
} from "./warmup/stuck-chains.ts";
export type { ChainWindowEvidence, StuckChain, StuckChainSettings, StuckReason, ReinitialisationPolicy } from "./warmup/stuck-chains.ts";
export { StuckWatch } from "./warmup/stuck-watch.ts";
export type { Reinitialisation, ChainCheck, EvidenceExchange, StuckWatchState } from "./warmup/stuck-watch.ts";

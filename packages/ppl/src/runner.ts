/**
 * `@ppl/ppl/runner`: the plumbing a package that runs transitions somewhere else (a GPU) plugs into
 * the sampler with, and that a caller who places a run (the CLI) uses: the transition runner
 * interface and its registry, the run plan, the chain batch a runner reads and writes, several
 * runners as one (splitRunner, chainGroupSizes), and the CPU fallback and pending-runner hooks of
 * sampleAsync with the decisions they report; the placement of a run (its plan, the prepared run,
 * the registry through which `@ppl/ppl-vulkan` provides placeRun and prepareRun).
 *
 * @module \@ppl/ppl/runner
 */
export {
  registerTransitionRunner, prepareTransitionRunner, transitionRunnerNames, ChainBatch,
  type RunnerStats, type TransitionRunner, type TransitionRunnerContext, type TransitionRunnerFactory,
  type RunPlan, type PreparedRunner, type PreparedPlan, type PlannedRunner, planOwnedOptions, type RunnerProvider, type DualAveragingSettings, type DualAveragingState,
  splitRunner, chainGroupSizes, type RunnerFallback, type FallbackDecision, cpuGradientLowerBound, dataElementCount,
  type PendingRunner, type PendingRunnerDecision, type ReadyRunner,
  registerRunPlacement, runPlacement, runLayout, placedSampleOptions,
  type OptionSpelling, type PlacementRequest, type PlaceRunOptions, type BatchedRounds, type Placement, type DeviceGroup, type PlacedPlan, type PendingGpu, type PreparedRun, type RunPlacement, type PendingGpuHooks,
} from "./sampler/index.ts";

export { type Objective, objectiveOf, dot, norm } from "./objective.ts";
export { loopedObjective, fixedBatchObjective, pointObjective, batchedOf, type BatchedObjective, type PointObjective } from "./batched-objective.ts";
export { runEvaluating, runLockstep, type Evaluating, type Evaluations } from "./evaluating.ts";
export { strongWolfe, strongWolfeSteps, LINE_SEARCH_DEFAULTS, type LineSearchOptions, type LineSearchResult } from "./line-search.ts";
export { CONVERGENCE_DEFAULTS, converged, convergenceTest, terminationMessage, type ConvergenceOptions, type Termination, type IterationChange } from "./convergence.ts";
export { startPoint, type OptimizerMethod, type PointState, type MethodSettings } from "./method.ts";
export { lbfgs, type LbfgsState } from "./lbfgs.ts";
export { bfgs, type BfgsState } from "./bfgs.ts";
export { newton, type NewtonState } from "./newton.ts";
export {
  minimize, optimizerStep, optimizerStepSteps, OptimizationError, OPTIMIZERS, type OptimizerName, type OptimizeOptions, type OptimizeResult, type StepResult,
} from "./run-optimizer.ts";
export { finiteDifferenceHessian } from "./hessian.ts";
export { cholesky, solveUpper, symmetricEigen } from "./linalg.ts";
export { laplaceApproximation, laplaceDraw, HessianError, type LaplaceApproximation } from "./laplace.ts";
export { optimizationDensity, withoutJacobian } from "./model-objective.ts";

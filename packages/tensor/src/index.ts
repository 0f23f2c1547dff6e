/**
 * `@ppl/tensor`: what a model author or a user of the tensor library calls — the tracing API (leaves,
 * elementwise, reductions, shapes, linear algebra, scan, ODEs, …), nodes and their types, the errors
 * it throws, autodiff, vmap, and evaluating graphs (the reference interpreter, the registered
 * backends). The building blocks under them (IR op tables, graph passes, rewrites, rule tables,
 * the CPU backends' objects) are `@ppl/tensor/internals`.
 *
 * @module \@ppl/tensor
 */
// The IR: nodes, dtypes, shapes, errors
export { Node } from "./ir/node.ts";
export type { DType } from "./ir/dtype.ts";
export type { Shape } from "./ir/shape.ts";
export { ShapeError, DTypeError, GraphError, IndexRangeError } from "./ir/errors.ts";
// Leaves
export { param, data, constant, type Operand } from "./api/leaves.ts";
// Elementwise
export {
  cast, select, polygamma, betainc, neg, abs, sign, exp, expm1, log, log1p, sqrt, rsqrt, square, reciprocal, sin, cos, tanh,
  sigmoid, softplus, logSigmoid, erf, erfc, lgamma, invPhi, digamma, trigamma, floor, ceil, not, isNan, isFinite, stopGradient,
  add, sub, mul, div, pow, maximum, minimum, atan2, mod, gammaP, gammaQ, owensT, quotient, remainder, bitAnd, bitOr, bitXor,
  bitNot, shiftLeft, shiftRight, lt, le, gt, ge, eq, ne, and, or,
} from "./api/elementwise.ts";
export { Phi, logPhi, log1mExp, logDiffExp } from "./api/special.ts";
export { logInvLogit, log1mInvLogit, log1pExp, logSumExp, logMix, logSoftmax } from "./api/log-scale.ts";
// Reductions
export { sum, prod, max, min, logsumexp, mean, type Axes } from "./api/reduce.ts";
export { lpdfSum } from "./api/lpdf-sum.ts";
export { any, all } from "./api/logical.ts";
export { argmax, argmin } from "./api/arg-reduce.ts";
// Shapes, indexing and windows
export {
  reshape, broadcastTo, transpose, mT, slice, index, concat, stack, pad, gather, scatterAdd, cumsum, type SliceSpec,
} from "./api/shape-ops.ts";
export { iota, eye } from "./api/iota.ts";
export { putSlice } from "./api/put-slice.ts";
export { conv1d, slidingSum, slidingMax } from "./api/windows.ts";
export { argsort, sort, takeAlongAxis } from "./api/sort.ts";
export { log10, at, row, col, range } from "./api/convenience.ts";
// Linear algebra, matrix helpers, GP covariances
export { matmul, dot, cholesky, triangularSolve, diagonal, logdetSpd } from "./api/linalg.ts";
export { solve, inverse, signLogDeterminant, logDeterminant, determinant, eighSymmetric, eigenvaluesSym, eigenvectorsSym } from "./api/linalg.ts";
export { identity, diagMatrix, rep, kronecker } from "./api/matrix-build.ts";
export { quadForm, quadFormDiag, traceQuadForm } from "./api/quad-form.ts";
export { gpExpQuadCov, gpMatern32Cov, gpPeriodicCov } from "./api/gp-cov.ts";
// Loops and ODEs
export { scan, type ScanStep, type ScanResult } from "./api/scan.ts";
export { odeRK45, odeRK45Solve, OdeError, type OdeRhs, type OdeOptions, type OdeSolution } from "./api/ode.ts";
// For its effect: the functional API's functions become methods of Node (x.add(y), beta.at(1)).
export type { FluentMethods } from "./api/fluent.ts";
import "./api/fluent.ts";
// Autodiff and vmap
export { vjp, grad, valueAndGrad } from "./autodiff/vjp.ts";
export { jvp, valueAndJvp } from "./autodiff/jvp.ts";
export { checkGrad, numericGrad, type GradCheckOptions, type GradCheckResult } from "./autodiff/check.ts";
export { vmap, type VmapSpec } from "./batch/vmap.ts";
// Evaluating graphs: the reference interpreter (the oracle) and the backends registered by name
export { interpret, type Bindings } from "./cpu/reference/interpret.ts";
export { tensorValue, type TensorValue } from "./cpu/value.ts";
export { getBackend, backendNames, type Backend, type Executable, type BoundExecutable, type ExecutableStats } from "./backend.ts";
import { registerBackend } from "./backend.ts";
import { referenceBackend } from "./cpu/reference/backend.ts";
import { compiledBackend } from "./cpu/compiled/backend.ts";
registerBackend("reference", referenceBackend);
registerBackend("cpu", compiledBackend);

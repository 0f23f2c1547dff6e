// @ppl/tensor/passes: the rewrites and analyses that a consumer runs on a graph before it
// evaluates it: optimization, the float type of a run, the lowerings a renderer needs (lpdf_sum
// expanded, the logistic functions written out), sums over a scatter's targets moved onto its rows,
// and which rows of the data a graph lets one permute. The same functions as
// @ppl/tensor/internals re-exports (one module instance: the entries share their chunks).
import "./index.ts";
export { optimize } from "./rewrite/optimize.ts";
export { castFloats } from "./rewrite/cast-floats.ts";
export { lowerLpdfSums } from "./rewrite/lower-lpdf-sum.ts";
export { lowerLogisticFunctions } from "./rewrite/lower-logistic.ts";
export { sumScattersOverRows } from "./rewrite/sum-scatters-over-rows.ts";
export { permutableRows, type PermutableRows } from "./graph/row-permutation.ts";

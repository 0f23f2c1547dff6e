// @ppl/tensor/internals: the building blocks under @ppl/tensor's user API, for the other packages of
// this repository, tests and benchmarks. Most importers want one of the named entries it gathers:
// @ppl/tensor/ir (ops and their traits, dtypes, shapes, graph walks, serialization),
// @ppl/tensor/passes (the rewrites run before evaluation) and @ppl/tensor/backend (what an
// evaluator is built from). What only this entry adds: the generic op builders, lpdf_sum's
// expansion and partials, the fluent methods' table, the simplifier's rules and passes, and
// autodiff's and vmap's rule tables. Not a stable API.
// Loaded for its effects too (the registered backends, Node's fluent methods), so that an importer
// of this entry alone sees what an importer of @ppl/tensor sees.
import "./index.ts";
// The named entries, whole: each lists its exports.
export * from "./ir-entry.ts";
export * from "./passes-entry.ts";
export * from "./backend-entry.ts";
// Generic op builders and the ops that only gradients use
export { arg, lift, isOperand } from "./api/leaves.ts";
export { unary, binary, compare, betaincGrad, gammaPDa } from "./api/elementwise.ts";
export { reduce } from "./api/reduce.ts";
export { lpdfSumExpansion, lpdfSumPartials, LPDF_ARITY } from "./api/lpdf-sum.ts";
export { FLUENT_METHODS } from "./api/fluent.ts";
// Rewrites
export { fillValue, type RewriteRule } from "./rewrite/rule.ts";
export { SIMPLIFY_RULES } from "./rewrite/simplify-rules.ts";
export { simplify } from "./rewrite/simplify.ts";
export { constantFold, FOLD_LIMIT } from "./rewrite/constant-fold.ts";
export { deadCode, liveNodes } from "./rewrite/dead-code.ts";
// Autodiff's and vmap's rules
export { unbroadcast } from "./autodiff/unbroadcast.ts";
export { RULES as VJP_RULES, TUPLE_RULES as VJP_TUPLE_RULES, hasRule as hasVjpRule } from "./autodiff/rules/index.ts";
export type { VjpRule, TupleVjpRule, VjpFn } from "./autodiff/rule.ts";
export { batchGraph } from "./batch/batch-graph.ts";
export { BATCH_RULES } from "./batch/batch-rules.ts";
export type { BatchRule, BatchedValue, BatchContext } from "./batch/batched-value.ts";

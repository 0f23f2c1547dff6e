// @ppl/tensor/internals: the building blocks under @ppl/tensor's user API, for the other packages of
// this repository (the Vulkan codegen and backend, ppl's density layer), tests and benchmarks: the
// IR's op tables and predicates, generic op builders, shape and dtype helpers, graph passes and
// serialization, rewrites, autodiff's and vmap's rule tables, the CPU backends' objects and the
// WebAssembly arena. Not a stable API.
// Loaded for its effects too (the registered backends, Node's fluent methods), so that an importer
// of this entry alone sees what an importer of @ppl/tensor sees.
import "./index.ts";
// The IR's op tables and predicates
export {
  UNARY_OPS, BINARY_OPS, INTEGER_BINARY_OPS, COMPARE_OPS, REDUCE_OPS, LEAF_OPS, STRUCT_OPS, LOOP_OPS, ALL_OPS, isUnary, isBinary,
  isIntegerBinary, isCompare, isReduce, isElementwise, isLoop, isView, isCheap, type UnaryOp, type BinaryOp, type IntegerBinaryOp,
  type CompareOp, type ReduceOp, type LeafOp, type StructOp, type LoopOp, type MovementOp, type Op, OP_TRAITS, type OpTraits, type OpClass,
  type LoopBudget, LPDF_FAMILIES, type LpdfFamily,
} from "./ir/ops.ts";
export type { ScanBody, Attrs } from "./ir/node.ts";
export { DTYPES, isFloat, promote, floatOf } from "./ir/dtype.ts";
export { sizeOf, stridesOf, fmt, broadcastShapes, normalizeAxes, sameShape } from "./ir/shape.ts";
// Generic op builders and the ops that only gradients use
export { arg, lift, isOperand } from "./api/leaves.ts";
export { unary, binary, compare, betaincGrad, gammaPDa } from "./api/elementwise.ts";
export { reduce } from "./api/reduce.ts";
export { lpdfSumExpansion, lpdfSumPartials, LPDF_ARITY } from "./api/lpdf-sum.ts";
export { FLUENT_METHODS } from "./api/fluent.ts";
// Graph passes and serialization
export { toposort, userCounts, leaves } from "./graph/toposort.ts";
export { substitute, rebuild } from "./graph/substitute.ts";
export { permutableRows, type PermutableRows } from "./graph/row-permutation.ts";
export {
  serializeGraph, deserializeGraph, type SerializedGraph, type SerializedNode, type SerializedScanBody,
} from "./graph/serialize.ts";
// Rewrites
export { fillValue, type RewriteRule } from "./rewrite/rule.ts";
export { lowerLpdfSums } from "./rewrite/lower-lpdf-sum.ts";
export { lowerLogisticFunctions } from "./rewrite/lower-logistic.ts";
export { sumScattersOverRows } from "./rewrite/sum-scatters-over-rows.ts";
export { SIMPLIFY_RULES } from "./rewrite/simplify-rules.ts";
export { simplify } from "./rewrite/simplify.ts";
export { constantFold, FOLD_LIMIT } from "./rewrite/constant-fold.ts";
export { deadCode, liveNodes } from "./rewrite/dead-code.ts";
export { optimize } from "./rewrite/optimize.ts";
export { castFloats } from "./rewrite/cast-floats.ts";
// Autodiff's and vmap's rules
export { unbroadcast } from "./autodiff/unbroadcast.ts";
export { RULES as VJP_RULES, TUPLE_RULES as VJP_TUPLE_RULES, hasRule as hasVjpRule } from "./autodiff/rules/index.ts";
export type { VjpRule, TupleVjpRule, VjpFn } from "./autodiff/rule.ts";
export { batchGraph } from "./batch/batch-graph.ts";
export { BATCH_RULES } from "./batch/batch-rules.ts";
export type { BatchRule, BatchedValue, BatchContext } from "./batch/batched-value.ts";
// Backends: registration and the CPU backends' objects
export { registerBackend } from "./backend.ts";
export { referenceBackend } from "./cpu/reference/backend.ts";
export { compiledBackend, type CompiledBackend, type CompiledExecutable } from "./cpu/compiled/backend.ts";
export { broadcastIndex } from "./cpu/reference/indexing.ts";
export { boundValues } from "./cpu/reference/interpret.ts";
export { roundInPlace } from "./cpu/value.ts";
export { Arena } from "./cpu/compiled/wasm.ts";

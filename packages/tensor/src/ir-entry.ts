// @ppl/tensor/ir: what a graph is made of, for code that reads graphs rather than builds them (a
// backend's renderer, a density layer, a serializer): the op vocabulary with each op's traits and
// predicates, dtypes and shapes, walks over a graph and its serialization. The same functions as
// @ppl/tensor/internals re-exports (one module instance: the entries share their chunks).
// Loaded for its effects too (the registered backends, Node's fluent methods), as @ppl/tensor is.
import "./index.ts";
// The op vocabulary and each op's traits (docs/structure.md, "An op and its traits")
export {
  UNARY_OPS, BINARY_OPS, INTEGER_BINARY_OPS, COMPARE_OPS, REDUCE_OPS, LEAF_OPS, STRUCT_OPS, LOOP_OPS, ALL_OPS, isUnary, isBinary,
  isIntegerBinary, isCompare, isReduce, isElementwise, isLoop, isView, isCheap, type UnaryOp, type BinaryOp, type IntegerBinaryOp,
  type CompareOp, type ReduceOp, type LeafOp, type StructOp, type LoopOp, type MovementOp, type Op, OP_TRAITS, type OpTraits, type OpClass,
  type LoopBudget, LPDF_FAMILIES, type LpdfFamily,
} from "./ir/ops.ts";
export type { ScanBody, Attrs } from "./ir/node.ts";
// Dtypes and shapes
export { DTYPES, isFloat, promote, floatOf } from "./ir/dtype.ts";
export { sizeOf, stridesOf, fmt, broadcastShapes, normalizeAxes, sameShape } from "./ir/shape.ts";
// Walks over a graph, and a graph as data
export { toposort, userCounts, leaves } from "./graph/toposort.ts";
export { substitute, rebuild } from "./graph/substitute.ts";
export {
  serializeGraph, deserializeGraph, type SerializedGraph, type SerializedNode, type SerializedScanBody,
} from "./graph/serialize.ts";

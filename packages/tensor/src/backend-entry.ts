// @ppl/tensor/backend: what an evaluator of graphs is built from: registering a backend by name,
// the checked values a graph's leaves are bound to, NumPy's broadcast indexing, the rounding of a
// float type, and the CPU backends' objects (the reference interpreter; the compiled backend, its
// executables and the shared WebAssembly arena it reads data from). The same functions as
// @ppl/tensor/internals re-exports (one module instance: the entries share their chunks).
import "./index.ts";
export { registerBackend } from "./backend.ts";
export { boundValues } from "./cpu/reference/interpret.ts";
export { broadcastIndex } from "./cpu/reference/indexing.ts";
export { roundInPlace } from "./cpu/value.ts";
export { referenceBackend } from "./cpu/reference/backend.ts";
export { compiledBackend, type CompiledBackend, type CompiledExecutable } from "./cpu/compiled/backend.ts";
export { Arena } from "./cpu/compiled/wasm.ts";

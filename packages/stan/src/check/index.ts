export { checkStan, type CheckedProgram } from "./check.ts";
export { binaryType } from "./operators.ts";
export { type SType, type Base, showType } from "./types.ts";

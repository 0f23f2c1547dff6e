import type { DType } from "@ppl/tensor";
import { preludeSource } from "../prelude.ts";

// Integer remainder with the sign of the divisor (Python's %), as the CPU backends compute it.
const INT_HELPERS = `int ppl_imod(int a, int b) { int r = a % b; return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; }\n`;

/** The GLSL every generated kernel starts with: the math prelude for its float types, plus integer helpers. */
export function kernelPrelude(dtypes: ReadonlySet<DType>): string {
  return `${INT_HELPERS}${preludeSource(dtypes.has("f64") ? "f64" : "f32")}`;
}

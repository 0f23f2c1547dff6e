/** Element types the IR knows. Models are traced in f64; backends may lower floats to f32. */
export type DType = "f64" | "f32" | "i32" | "bool";

export const DTYPES: readonly DType[] = ["bool", "i32", "f32", "f64"];

const RANK: Record<DType, number> = { bool: 0, i32: 1, f32: 2, f64: 3 };

/** True for f32 and f64. */
export function isFloat(d: DType): boolean {
  return d === "f32" || d === "f64";
}

/** The type both operands convert to in a binary op (bool < i32 < f32 < f64). */
export function promote(a: DType, b: DType): DType {
  return RANK[a] >= RANK[b] ? a : b;
}

/** The float type an op that needs floats computes in: ints and bools go to f64. */
export function floatOf(d: DType): DType {
  return isFloat(d) ? d : "f64";
}

import type { DType } from "@ppl/tensor";

/** GLSL type of a value of this dtype inside a shader. */
export function glslType(dtype: DType): string {
  switch (dtype) {
    case "f32": return "float";
    case "f64": return "double";
    case "i32": return "int";
    case "bool": return "bool";
  }
}

/** GLSL element type of a storage buffer holding this dtype (bools are stored as ints). */
export function bufferType(dtype: DType): string {
  return dtype === "bool" ? "int" : glslType(dtype);
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** An exact GLSL literal of `value` in `dtype` (infinities and NaN through bit patterns); negative ones in parentheses, so `a-` + literal never reads as `a--`. */
export function literal(value: number, dtype: DType): string {
  const text = literalText(value, dtype);
  return text.startsWith("-") ? `(${text})` : text;
}

function literalText(value: number, dtype: DType): string {
  switch (dtype) {
    case "bool": return value ? "true" : "false";
    case "i32": return `${value | 0}`;
    case "f32": {
      if (!Number.isFinite(value) || Object.is(value, -0)) {
        f32[0] = value;
        return `uintBitsToFloat(0x${u32[0]!.toString(16)}u)`;
      }
      // 9 significant digits round-trip any f32.
      return `${Math.fround(value).toPrecision(9)}`.replace(/^(-?\d+)$/, "$1.0").replace(/e/, "e") ;
    }
    case "f64": {
      if (!Number.isFinite(value) || Object.is(value, -0)) {
        const b = new Float64Array([value]);
        const w = new Uint32Array(b.buffer);
        return `packDouble2x32(uvec2(0x${w[0]!.toString(16)}u, 0x${w[1]!.toString(16)}u))`;
      }
      // 17 significant digits round-trip any f64; the LF suffix keeps it double.
      return `${value.toPrecision(17)}LF`;
    }
  }
}

/** Convert a GLSL expression of type `from` to `to`. */
export function convert(expr: string, from: DType, to: DType): string {
  if (from === to) return expr;
  if (to === "bool") return `(${expr} != ${literal(0, from)})`;
  return `${glslType(to)}(${expr})`;
}

import type { DType } from "../ir/dtype.ts";
import { ShapeError } from "../ir/errors.ts";
import { fmt, sizeOf, type Shape } from "../ir/shape.ts";

/** A concrete tensor on the host: row-major values in a Float64Array whatever the dtype (ints and bools are stored exactly). */
export interface TensorValue {
  readonly dtype: DType;
  readonly shape: Shape;
  readonly data: Float64Array;
  /**
   * The same values in 32 bits, where they came so (f32 values are exact in f64): a device that
   * stores them as f32 writes these as they are, with no conversion of millions of entries.
   */
  readonly f32?: Float32Array;
}

/** Make a host tensor, checking that the values fill the shape. */
export function tensorValue(data: ArrayLike<number>, shape: Shape = [], dtype: DType = "f64"): TensorValue {
  const arr = data instanceof Float64Array ? data : Float64Array.from(data);
  if (arr.length !== sizeOf(shape)) throw new ShapeError(`tensorValue: ${arr.length} values do not fill shape ${fmt(shape)}`);
  return { dtype, shape: [...shape], data: arr };
}

/** Round a value to what its dtype can hold (f32 rounding, i32 wrap, bool 0/1). */
export function roundInPlace(dtype: DType, a: Float64Array): Float64Array {
  if (dtype === "f32") for (let i = 0; i < a.length; i++) a[i] = Math.fround(a[i]!);
  else if (dtype === "i32") for (let i = 0; i < a.length; i++) a[i] = a[i]! | 0;
  else if (dtype === "bool") for (let i = 0; i < a.length; i++) a[i] = a[i] ? 1 : 0;
  return a;
}

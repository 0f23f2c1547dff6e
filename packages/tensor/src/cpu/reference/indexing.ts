import { stridesOf, type Shape } from "../../ir/shape.ts";

/** For each flat index of `outShape`, the flat index of the input of `inShape` that broadcasts to it. */
export function broadcastIndex(inShape: Shape, outShape: Shape): Int32Array {
  const n = outShape.reduce((a, b) => a * b, 1);
  const map = new Int32Array(n);
  const inStrides = stridesOf(inShape);
  const off = outShape.length - inShape.length;
  const idx = new Array<number>(outShape.length).fill(0);
  for (let f = 0; f < n; f++) {
    let src = 0;
    for (let a = 0; a < inShape.length; a++) if (inShape[a] !== 1) src += idx[a + off]! * inStrides[a]!;
    map[f] = src;
    for (let a = outShape.length - 1; a >= 0; a--) {
      if (++idx[a]! < outShape[a]!) break;
      idx[a] = 0;
    }
  }
  return map;
}

/** Visit every multi-index of a shape in row-major order. */
export function forEachIndex(shape: Shape, fn: (idx: readonly number[], flat: number) => void): void {
  const n = shape.reduce((a, b) => a * b, 1);
  const idx = new Array<number>(shape.length).fill(0);
  for (let f = 0; f < n; f++) {
    fn(idx, f);
    for (let a = shape.length - 1; a >= 0; a--) {
      if (++idx[a]! < shape[a]!) break;
      idx[a] = 0;
    }
  }
}

/** Flat row-major offset of a multi-index. */
export function flatOf(idx: readonly number[], strides: readonly number[]): number {
  let f = 0;
  for (let i = 0; i < idx.length; i++) f += idx[i]! * strides[i]!;
  return f;
}

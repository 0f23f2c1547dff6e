import { reshape, transpose, type Node, type Shape } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/internals";

/** Stan-style names of every entry of a value of `shape`, 1-based, first index fastest (Stan's output order): L[1,1], L[2,1], … */
export function stanNames(name: string, shape: Shape): string[] {
  if (shape.length === 0) return [name];
  const n = sizeOf(shape);
  const out: string[] = [];
  const idx = new Array<number>(shape.length).fill(0);
  for (let f = 0; f < n; f++) {
    out.push(`${name}[${idx.map((i) => i + 1).join(",")}]`);
    for (let a = 0; a < shape.length; a++) {
      if (++idx[a]! < shape[a]!) break;
      idx[a] = 0;
    }
  }
  return out;
}

/** The name of the entry at row-major position `flat` of a value of `shape`, 1-based as in Stan: y[3], X[2,1]. */
export function entryName(name: string, shape: readonly number[], flat: number): string {
  if (shape.length === 0) return name;
  const idx = new Array<number>(shape.length);
  for (let a = shape.length - 1; a >= 0; a--) {
    idx[a] = (flat % shape[a]!) + 1;
    flat = Math.floor(flat / shape[a]!);
  }
  return `${name}[${idx.join(",")}]`;
}

/** A value flattened in Stan's output order (first index fastest), as a vector. */
export function flattenStanOrder(x: Node): Node {
  if (x.rank <= 1) return reshape(x, [x.size]);
  return reshape(transpose(x), [x.size]);
}

/** The inverse of flattenStanOrder: a vector in Stan's output order reshaped to `shape`. */
export function unflattenStanOrder(flat: Node, shape: Shape): Node {
  if (shape.length <= 1) return reshape(flat, shape);
  return transpose(reshape(flat, [...shape].reverse()));
}

/** Copies row-major values of `shape` into out[offset…] in Stan's output order (first index fastest). */
export function copyInStanOrder(rowMajor: ArrayLike<number>, shape: Shape, out: Float64Array, offset: number): void {
  const n = sizeOf(shape);
  if (shape.length <= 1) {
    for (let i = 0; i < n; i++) out[offset + i] = rowMajor[i]!;
    return;
  }
  // Walk the entries in Stan's order, keeping the row-major index of each.
  const strides = new Array<number>(shape.length);
  strides[shape.length - 1] = 1;
  for (let a = shape.length - 2; a >= 0; a--) strides[a] = strides[a + 1]! * shape[a + 1]!;
  const idx = new Array<number>(shape.length).fill(0);
  let src = 0;
  for (let f = 0; f < n; f++) {
    out[offset + f] = rowMajor[src]!;
    for (let a = 0; a < shape.length; a++) {
      src += strides[a]!;
      if (++idx[a]! < shape[a]!) break;
      src -= strides[a]! * shape[a]!;
      idx[a] = 0;
    }
  }
}

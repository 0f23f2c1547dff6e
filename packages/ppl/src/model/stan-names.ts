import { reshape, sizeOf, transpose, type Node, type Shape } from "@ppl/tensor";

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

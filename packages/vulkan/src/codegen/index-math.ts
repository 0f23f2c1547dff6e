import { type Shape } from "@ppl/tensor";
import { stridesOf } from "@ppl/tensor/ir";

/** Multiply an index expression by a constant, folding the trivial cases. */
export function times(e: string, k: number): string {
  if (k === 0 || e === "0") return "0";
  if (k === 1) return e;
  return `(${e})*${k}`;
}

/** Sum index expressions, dropping zeros. */
export function plus(...terms: string[]): string {
  const t = terms.filter((x) => x !== "0");
  return t.length === 0 ? "0" : t.length === 1 ? t[0]! : `(${t.join("+")})`;
}

/** Row-major flat offset of a multi-index into a tensor of `shape`. */
export function flatten(shape: Shape, idx: readonly string[]): string {
  const st = stridesOf(shape);
  return plus(...idx.map((e, a) => (shape[a] === 1 ? "0" : times(e, st[a]!))));
}

/** Multi-index expressions of a flat row-major offset into `shape`. */
export function unflatten(shape: Shape, flat: string): string[] {
  const st = stridesOf(shape);
  return shape.map((d, a) => {
    if (d === 1) return "0";
    const q = st[a] === 1 ? flat : `(${flat})/${st[a]}`;
    return a === 0 ? q : `(${q})%${d}`;
  });
}

/** Index into an input of `inShape` that broadcasts (NumPy rules) to an output indexed by `outIdx`. */
export function broadcastIndex(inShape: Shape, outIdx: readonly string[]): string[] {
  const off = outIdx.length - inShape.length;
  return inShape.map((d, a) => (d === 1 ? "0" : outIdx[a + off]!));
}

import { ShapeError } from "./errors.ts";

/** Dimensions of a tensor, outermost first; [] is a scalar. */
export type Shape = readonly number[];

/** Number of elements of a shape. */
export function sizeOf(shape: Shape): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

/** Row-major strides of a shape. */
export function stridesOf(shape: Shape): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/** Format a shape for messages: [3,4]. */
export function fmt(shape: Shape): string {
  return `[${shape.join(",")}]`;
}

/** NumPy broadcasting of any number of shapes; throws a ShapeError naming the op. */
export function broadcastShapes(op: string, ...shapes: Shape[]): number[] {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    for (let i = 0; i < s.length; i++) {
      const o = rank - s.length + i;
      const d = s[i]!;
      if (d === out[o] || d === 1) continue;
      if (out[o] === 1) out[o] = d;
      else throw new ShapeError(`${op}: cannot broadcast shapes ${shapes.map(fmt).join(" and ")}`);
    }
  }
  return out;
}

/** Normalize possibly negative axes against a rank, checking range and duplicates. */
export function normalizeAxes(op: string, axes: readonly number[], rank: number): number[] {
  const out = axes.map((a) => {
    const b = a < 0 ? a + rank : a;
    if (!Number.isInteger(b) || b < 0 || b >= rank) {
      throw new ShapeError(`${op}: axis ${a} is out of range for a tensor of rank ${rank}`);
    }
    return b;
  });
  if (new Set(out).size !== out.length) throw new ShapeError(`${op}: repeated axis in [${axes.join(",")}]`);
  return out.sort((x, y) => x - y);
}

/** True when two shapes are equal. */
export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

import { GraphError } from "../../ir/errors.ts";
import type { Node } from "../../ir/node.ts";
import { isView } from "../../ir/ops.ts";
import { stridesOf } from "../../ir/shape.ts";

/**
 * Where a node's values live, as seen by the code that reads them: a strided window on some
 * buffer, or one literal filling the shape. Views (reshape, transpose, broadcast_to, slice) only
 * change the window, so they cost no loop and no memory unless something needs them contiguous.
 */
export type Layout =
  | { readonly kind: "buf"; readonly source: Node; readonly start: number; readonly shape: readonly number[]; readonly strides: readonly number[] }
  | { readonly kind: "lit"; readonly value: number; readonly shape: readonly number[] };

/** True when the node is a scalar-filled constant (it becomes a literal in code). */
export function isFillConst(n: Node): boolean {
  return n.op === "const" && typeof n.attrs.value === "number";
}

/** The layout of `n`, given which nodes own a buffer (leaves, array constants, written nodes). */
export function layoutOf(n: Node, hasBuffer: (n: Node) => boolean): Layout {
  if (isFillConst(n)) return { kind: "lit", value: n.attrs.value as number, shape: n.shape };
  if (hasBuffer(n)) return { kind: "buf", source: n, start: 0, shape: n.shape, strides: stridesOf(n.shape) };
  if (isView(n.op)) return viewLayout(n, layoutOf(n.inputs[0]!, hasBuffer));
  throw new GraphError(`compiled CPU: ${n} has no buffer (scheduler bug)`);
}

/** The layout of a view node over its input's layout. */
export function viewLayout(n: Node, l: Layout): Layout {
  if (l.kind === "lit") return { kind: "lit", value: l.value, shape: n.shape };
  switch (n.op) {
    case "reshape":
      if (isContiguous(l)) return { ...l, shape: n.shape, strides: stridesOf(n.shape) };
      // Adding or dropping axes of length 1 re-indexes any window: the other axes keep their strides.
      if (isUnitReshape(l.shape, n.shape)) {
        const kept = l.strides.filter((_, i) => l.shape[i] !== 1);
        let k = 0;
        return { ...l, shape: n.shape, strides: n.shape.map((d) => (d === 1 ? 0 : kept[k++]!)) };
      }
      throw new GraphError(`compiled CPU: reshape of a non-contiguous view (scheduler bug)`);
    case "transpose": {
      const perm = n.attrs.perm!;
      return { ...l, shape: n.shape, strides: perm.map((p) => l.strides[p]!) };
    }
    case "broadcast_to": {
      const off = n.rank - l.shape.length;
      const strides = n.shape.map((_, i) => (i < off || l.shape[i - off] === 1 ? 0 : l.strides[i - off]!));
      return { ...l, shape: n.shape, strides };
    }
    case "slice": {
      const { starts, steps } = n.attrs;
      let start = l.start;
      for (let k = 0; k < l.shape.length; k++) start += starts![k]! * l.strides[k]!;
      return { ...l, start, shape: n.shape, strides: l.strides.map((s, k) => s * steps![k]!) };
    }
    default:
      throw new GraphError(`compiled CPU: '${n.op}' is not a view`);
  }
}

/** True when the window is the row-major block [start, start + size) (axes of length 1 may have any stride). */
export function isContiguous(l: Layout): boolean {
  if (l.kind === "lit") return false;
  const rowMajor = stridesOf(l.shape);
  return l.shape.every((d, i) => d <= 1 || l.strides[i] === rowMajor[i]);
}

/** True when a reshape from `from` to `to` only adds or drops axes of length 1 (the other axes are the same, in order). */
export function isUnitReshape(from: readonly number[], to: readonly number[]): boolean {
  const a = from.filter((d) => d !== 1), b = to.filter((d) => d !== 1);
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

import { promote } from "../ir/dtype.ts";
import { ShapeError, DTypeError } from "../ir/errors.ts";
import { Node } from "../ir/node.ts";
import { broadcastShapes, fmt, normalizeAxes, sameShape, sizeOf, type Shape } from "../ir/shape.ts";
import { cast } from "./elementwise.ts";
import { lift, type Operand } from "./leaves.ts";

/** Same values in a new shape (row-major); one dimension may be -1. */
export function reshape(x: Operand, shape: readonly number[]): Node {
  const n = lift(x);
  const out = [...shape];
  const unknown = out.indexOf(-1);
  if (unknown >= 0) {
    const known = sizeOf(out.filter((_, i) => i !== unknown));
    out[unknown] = known === 0 ? 0 : n.size / known;
  }
  if (sizeOf(out) !== n.size || out.some((d) => !Number.isInteger(d) || d < 0)) {
    throw new ShapeError(`reshape: cannot reshape ${fmt(n.shape)} (${n.size} elements) to ${fmt(shape)}`);
  }
  if (sameShape(out, n.shape)) return n;
  return Node.make("reshape", n.dtype, out, [n]);
}

/** Broadcast to a larger shape by NumPy rules. */
export function broadcastTo(x: Operand, shape: Shape): Node {
  const n = lift(x);
  const out = broadcastShapes("broadcast_to", n.shape, shape);
  if (!sameShape(out, shape)) throw new ShapeError(`broadcast_to: cannot broadcast ${fmt(n.shape)} to ${fmt(shape)}`);
  if (sameShape(n.shape, shape)) return n;
  return Node.make("broadcast_to", n.dtype, [...shape], [n]);
}

/** Permute axes: output axis i is input axis perm[i]; default reverses the axes. */
export function transpose(x: Operand, perm?: readonly number[]): Node {
  const n = lift(x);
  const p = perm ?? n.shape.map((_, i) => n.rank - 1 - i);
  if (p.length !== n.rank || [...p].sort((a, b) => a - b).some((v, i) => v !== i)) {
    throw new ShapeError(`transpose: [${p.join(",")}] is not a permutation of the ${n.rank} axes of ${fmt(n.shape)}`);
  }
  if (p.every((v, i) => v === i)) return n;
  return Node.make("transpose", n.dtype, p.map((a) => n.shape[a]!), [n], { perm: [...p] });
}

/** Swap the last two axes. */
export function mT(x: Operand): Node {
  const n = lift(x);
  if (n.rank < 2) throw new ShapeError(`mT: needs rank >= 2, got ${fmt(n.shape)}`);
  const perm = n.shape.map((_, i) => i);
  perm[n.rank - 2] = n.rank - 1;
  perm[n.rank - 1] = n.rank - 2;
  return transpose(n, perm);
}

/** One axis of a slice: start (inclusive), stop (exclusive), positive step; Python-style negatives allowed. */
export interface SliceSpec {
  start?: number;
  stop?: number;
  step?: number;
}

/** Strided slice; `specs[i]` applies to axis i (missing axes are kept whole). */
export function slice(x: Operand, specs: readonly (SliceSpec | undefined)[]): Node {
  const n = lift(x);
  if (specs.length > n.rank) throw new ShapeError(`slice: ${specs.length} slice specs for ${fmt(n.shape)}`);
  const starts: number[] = [], stops: number[] = [], steps: number[] = [], shape: number[] = [];
  n.shape.forEach((d, i) => {
    const s = specs[i] ?? {};
    const step = s.step ?? 1;
    if (!Number.isInteger(step) || step < 1) throw new ShapeError(`slice: step must be a positive integer, got ${step} on axis ${i}`);
    const clamp = (v: number) => Math.min(d, Math.max(0, v < 0 ? v + d : v));
    const start = clamp(s.start ?? 0);
    const stop = Math.max(start, clamp(s.stop ?? d));
    starts.push(start);
    stops.push(stop);
    steps.push(step);
    shape.push(Math.ceil((stop - start) / step));
  });
  if (sameShape(shape, n.shape)) return n;
  return Node.make("slice", n.dtype, shape, [n], { starts, stops, steps });
}

/** Entry i along `axis` with that axis removed. */
export function index(x: Operand, i: number, axis = 0): Node {
  const n = lift(x);
  const [ax] = normalizeAxes("index", [axis], n.rank);
  const d = n.shape[ax!]!;
  const j = i < 0 ? i + d : i;
  if (j < 0 || j >= d) throw new ShapeError(`index: ${i} is out of range for axis ${axis} of ${fmt(n.shape)}`);
  const specs: SliceSpec[] = [];
  specs[ax!] = { start: j, stop: j + 1 };
  const s = slice(n, specs);
  return reshape(s, n.shape.filter((_, k) => k !== ax));
}

/** Join tensors along an existing axis. */
export function concat(xs: readonly Operand[], axis = 0): Node {
  if (xs.length === 0) throw new ShapeError("concat: needs at least one tensor");
  let nodes = xs.map((x) => lift(x));
  const dt = nodes.map((n) => n.dtype).reduce(promote);
  nodes = nodes.map((n) => cast(n, dt));
  const rank = nodes[0]!.rank;
  const [ax] = normalizeAxes("concat", [axis], rank);
  let total = 0;
  for (const n of nodes) {
    if (n.rank !== rank || n.shape.some((d, i) => i !== ax && d !== nodes[0]!.shape[i])) {
      throw new ShapeError(`concat: shapes ${nodes.map((m) => fmt(m.shape)).join(" and ")} differ off axis ${ax}`);
    }
    total += n.shape[ax!]!;
  }
  if (nodes.length === 1) return nodes[0]!;
  const shape = [...nodes[0]!.shape];
  shape[ax!] = total;
  return Node.make("concat", dt, shape, nodes, { axis: ax! });
}

/** Stack tensors of equal shape along a new axis. */
export function stack(xs: readonly Operand[], axis = 0): Node {
  const nodes = xs.map((x) => lift(x));
  const r = nodes[0]?.rank ?? 0;
  const ax = axis < 0 ? axis + r + 1 : axis;
  return concat(nodes.map((n) => reshape(n, [...n.shape.slice(0, ax), 1, ...n.shape.slice(ax)])), ax);
}

/** Pad each axis with `value`: widths[i] = [before, after], both non-negative. */
export function pad(x: Operand, widths: readonly (readonly [number, number])[], value = 0): Node {
  const n = lift(x);
  if (widths.length !== n.rank) throw new ShapeError(`pad: ${widths.length} widths for ${fmt(n.shape)}`);
  for (const [lo, hi] of widths) {
    if (!Number.isInteger(lo) || !Number.isInteger(hi) || lo < 0 || hi < 0) throw new ShapeError(`pad: widths must be non-negative integers, got [${lo},${hi}]`);
  }
  if (widths.every(([lo, hi]) => lo === 0 && hi === 0)) return n;
  const shape = n.shape.map((d, i) => d + widths[i]![0] + widths[i]![1]);
  return Node.make("pad", n.dtype, shape, [n], { widths: widths.map(([a, b]) => [a, b] as const), padValue: value });
}

/** Take entries along `axis` at integer `indices` (NumPy's take): out = x.shape[:axis] + indices.shape + x.shape[axis+1:]. */
export function gather(x: Operand, indices: Node, axis = 0): Node {
  const n = lift(x);
  if (indices.dtype !== "i32") throw new DTypeError(`gather: indices must be i32, got ${indices.dtype}`);
  const [ax] = normalizeAxes("gather", [axis], n.rank);
  const shape = [...n.shape.slice(0, ax), ...indices.shape, ...n.shape.slice(ax! + 1)];
  return Node.make("gather", n.dtype, shape, [n, indices], { axis: ax! });
}

/** Sum `updates` into a zero tensor whose `axis` has `size` entries, at `indices` (the adjoint of gather). */
export function scatterAdd(updates: Node, indices: Node, axis: number, size: number): Node {
  if (indices.dtype !== "i32") throw new DTypeError(`scatter_add: indices must be i32, got ${indices.dtype}`);
  const k = indices.rank;
  const ax = axis < 0 ? axis + updates.rank - k + 1 : axis;
  const expect = updates.shape.slice(ax, ax + k);
  if (ax < 0 || !sameShape(expect, indices.shape)) {
    throw new ShapeError(`scatter_add: updates ${fmt(updates.shape)} do not hold indices ${fmt(indices.shape)} at axis ${axis}`);
  }
  const shape = [...updates.shape.slice(0, ax), size, ...updates.shape.slice(ax + k)];
  return Node.make("scatter_add", updates.dtype, shape, [updates, indices], { axis: ax });
}

/** Running sum along `axis` (inclusive); `reverse` sums from the end. */
export function cumsum(x: Operand, axis = 0, reverse = false): Node {
  let n = lift(x);
  if (n.dtype === "bool") n = cast(n, "i32");
  const [ax] = normalizeAxes("cumsum", [axis], n.rank);
  return Node.make("cumsum", n.dtype, n.shape, [n], { axis: ax!, reverse });
}

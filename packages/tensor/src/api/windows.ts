import { DTypeError, ShapeError } from "../ir/errors.ts";
import type { Node } from "../ir/node.ts";
import { fmt, normalizeAxes } from "../ir/shape.ts";
import { mul } from "./elementwise.ts";
import { constant, lift, type Operand } from "./leaves.ts";
import { max, sum } from "./reduce.ts";
import { gather, reshape } from "./shape-ops.ts";

// Sliding windows are one gather with a constant (n − k + 1) × k index table, t[i, j] = i + j,
// then a reduction over the window axis: O(n·k) work like the direct loop, one pass, and the
// gradient is gather's (a scatter-add of the window cotangents back onto x).
function windowed(op: string, x: Node, k: number, axis: number): { win: Node; axis: number } {
  const [ax] = normalizeAxes(op, [axis], x.rank);
  const n = x.shape[ax!]!;
  if (!Number.isInteger(k) || k < 1 || k > n) throw new ShapeError(`${op}: a window of ${k} does not fit axis ${ax} of ${fmt(x.shape)}`);
  const m = n - k + 1;
  const table = constant(Array.from({ length: m * k }, (_, t) => Math.floor(t / k) + (t % k)), [m, k], "i32");
  return { win: gather(x, table, ax!), axis: ax! + 1 };
}

/** Sums of each run of `k` consecutive entries along `axis` (the last by default): length n − k + 1. */
export function slidingSum(x: Operand, k: number, axis = -1): Node {
  const w = windowed("slidingSum", lift(x), k, axis);
  return sum(w.win, w.axis);
}

/** Maxima of each run of `k` consecutive entries along `axis` (the last by default): length n − k + 1. */
export function slidingMax(x: Operand, k: number, axis = -1): Node {
  const w = windowed("slidingMax", lift(x), k, axis);
  return max(w.win, w.axis);
}

/**
 * 1-D convolution without padding ("valid"), along the last axis of x, with a 1-D kernel w of k
 * taps: y[…, i] = Σ_j x[…, i + j]·w[k − 1 − j], so conv1d([1, 2, 3], [0, 1]) = [1, 2] (the kernel is
 * flipped, as in NumPy's convolve; cross-correlation is conv1d with w reversed).
 */
export function conv1d(x: Operand, w: Operand): Node {
  const xn = lift(x), wn = lift(w);
  if (wn.rank !== 1) throw new ShapeError(`conv1d: the kernel must be 1-D, got ${fmt(wn.shape)}`);
  if (wn.dtype === "bool" || xn.dtype === "bool") throw new DTypeError("conv1d: expects numbers, got bool");
  const k = wn.shape[0]!;
  const win = windowed("conv1d", xn, k, -1);
  const flipped = gather(wn, constant(Array.from({ length: k }, (_, j) => k - 1 - j), [k], "i32"));
  return sum(mul(win.win, reshape(flipped, [k])), win.axis);
}

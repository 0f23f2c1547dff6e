import { add, broadcastTo, cast, eq, gather, index, iota, mul, putSlice, reshape, select, slice, sub, type Node } from "@ppl/tensor";
import { StaticValueError } from "../library/functions.ts";
import { isCells, materialize, shapeOf, toCells, type Val } from "./values.ts";

/**
 * An index as evaluated: one position (known now or a node of data), a range with known ends, or
 * positions in an int array. In a vectorized loop a single index is a vector of one position per
 * iteration (`at` of rank 1): x[a[n], b[n]] reads one entry per iteration, not their outer product.
 */
export type IndexVal =
  | { readonly kind: "single"; readonly at: number | Node }
  | { readonly kind: "range"; readonly lower: number | undefined; readonly upper: number | undefined }
  | { readonly kind: "multi"; readonly at: Node };

/** An index out of its range, found while tracing: Stan's message, which the compiler places at the expression. */
export class IndexRangeError extends Error {}

function checkRange(i: number, size: number, axis: number): number {
  if (!Number.isInteger(i) || i < 1 || i > size) throw new IndexRangeError(`index ${i} out of range; expecting an index between 1 and ${size} (axis ${axis + 1})`);
  return i - 1;
}

const zeroBasedNode = (at: Node) => cast(sub(at, 1), "i32");

/** x[indices] with Stan's semantics: single indices drop their axis, ranges and int arrays keep it. */
export function readIndex(v: Val, idx: readonly IndexVal[]): Val {
  if (idx.length === 0) return v;
  const [first, ...rest] = idx;
  if (isCells(v) && first!.kind === "single" && typeof first!.at === "number") {
    return readIndex(v.cells[checkRange(first!.at, v.cells.length, 0)]!, rest);
  }
  let node = materialize(v);
  if (node.rank < idx.length) throw new IndexRangeError(`${idx.length} indices for a value of ${node.rank} dimensions`);
  let axis = 0;
  // The axis of the iterations, once a vectorized loop's index has gathered along one.
  let batchAxis: number | undefined;
  for (const i of idx) {
    const size = node.shape[axis]!;
    if (i.kind === "single" && typeof i.at !== "number" && i.at.rank > 0) {
      if (batchAxis === undefined) {
        // A loop over consecutive positions (x[n] for n in lo:hi) reads a slice, not a gather.
        const from = consecutiveFrom(i.at);
        if (from !== undefined) {
          checkRange(from, size, axis);
          checkRange(from + i.at.size - 1, size, axis);
          const specs = [];
          specs[axis] = { start: from - 1, stop: from - 1 + i.at.size };
          node = slice(node, specs);
        } else node = gather(node, zeroBasedNode(i.at), axis);
        batchAxis = axis++;
      } else node = alongIterations(node, batchAxis, axis, i.at);
    } else if (i.kind === "single") {
      node = typeof i.at === "number" ? index(node, checkRange(i.at, size, axis), axis) : gather(node, zeroBasedNode(i.at), axis);
    } else if (i.kind === "multi") {
      node = gather(node, zeroBasedNode(i.at), axis);
      axis += i.at.rank;
    } else {
      const lo = i.lower ?? 1;
      const hi = i.upper ?? size;
      if (hi >= lo) {
        checkRange(lo, size, axis);
        checkRange(hi, size, axis);
      }
      const specs = [];
      specs[axis] = { start: lo - 1, stop: Math.max(lo - 1, hi) };
      node = slice(node, specs);
      axis++;
    }
  }
  return node;
}

// The first of a constant vector of consecutive positions (lo, lo + 1, …), else undefined.
function consecutiveFrom(at: Node): number | undefined {
  const v = at.op === "const" && at.rank === 1 ? at.attrs.value : undefined;
  if (v === undefined || typeof v === "number" || v.length === 0) return undefined;
  const first = v[0]!;
  for (let k = 1; k < v.length; k++) if (v[k] !== first + k) return undefined;
  return first;
}

// Entry at[k] of `axis` for iteration k: the iterations' axis and `axis` (next to it) merge into
// one, from which one entry per iteration is gathered.
function alongIterations(node: Node, batchAxis: number, axis: number, at: Node): Node {
  if (axis !== batchAxis + 1) throw new IndexRangeError("a vectorized loop's indices must be adjacent (x[a[n], b[n]])");
  const [b, c] = [node.shape[batchAxis]!, node.shape[axis]!];
  const merged = reshape(node, [...node.shape.slice(0, batchAxis), b * c, ...node.shape.slice(axis + 1)]);
  const flat = cast(add(mul(iota(b), c), zeroBasedNode(at)), "i32");
  return gather(merged, flat, batchAxis);
}

// x with x[at, rest] replaced, `at` a position known only at run time (a vmapped loop's index,
// x[i, i] = …): the row at `at`, assigned, selected into x where the position matches.
function assignAtNode(node: Node, at: Node, rest: readonly IndexVal[], value: Val): Node {
  const row = materialize(assignIndex(gather(node, zeroBasedNode(at), 0), rest, value));
  const rowShape = node.shape.slice(1);
  const mask = reshape(eq(iota(node.shape[0]!), zeroBasedNode(at)), [node.shape[0]!, ...rowShape.map(() => 1)]);
  return select(mask, broadcastTo(reshape(cast(row, node.dtype), [1, ...rowShape]), node.shape), node);
}

/** x with x[indices] replaced by `value`: entry by entry along the first axis where the index is known, else as a block. */
export function assignIndex(v: Val, idx: readonly IndexVal[], value: Val): Val {
  if (idx.length === 0) return value;
  const [first, ...rest] = idx;
  if (first!.kind === "single" && typeof first!.at === "number") {
    const cells = toCells(v);
    const k = checkRange(first!.at, cells.cells.length, 0);
    cells.cells[k] = assignIndex(cells.cells[k]!, rest, value);
    return cells;
  }
  const node = materialize(v);
  if (first!.kind === "single" && typeof first!.at !== "number" && first!.at.rank === 0) return assignAtNode(node, first!.at, rest, value);
  const starts: number[] = [];
  const block: number[] = [];
  node.shape.forEach((size, axis) => {
    const i = idx[axis];
    if (i === undefined) {
      starts.push(0);
      block.push(size);
    } else if (i.kind === "single") {
      if (typeof i.at !== "number") throw new StaticValueError();
      starts.push(checkRange(i.at, size, axis));
      block.push(1);
    } else if (i.kind === "range") {
      const lo = i.lower ?? 1;
      const hi = i.upper ?? size;
      starts.push(lo - 1);
      block.push(Math.max(0, hi - lo + 1));
    } else throw new StaticValueError();
  });
  const vn = materialize(value);
  const want = block.reduce((a, b) => a * b, 1);
  if (vn.size !== want) throw new IndexRangeError(`the assigned value has shape [${shapeOf(value).join(",")}], the indexed block has ${want} entries`);
  // The whole of x assigned (a map loop over every position): the value, nothing of x kept.
  if (want === node.size) return reshape(vn, node.shape);
  return putSlice(node, reshape(vn, block), starts);
}

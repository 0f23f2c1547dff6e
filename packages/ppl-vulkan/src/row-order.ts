import { interpret, type Node, type TensorValue } from "@ppl/tensor";
import { toposort } from "@ppl/tensor/ir";
import { permutableRows } from "@ppl/tensor/passes";
import { segmentLayout } from "@ppl/vulkan/internals";

/** The data bound to a batched gradient: each leaf's values, by name. */
export type BoundData = Readonly<Record<string, TensorValue>>;

/**
 * The data with their rows sorted by the group index they gather by, where the outputs do not
 * depend on the order of those rows (permutableRows); the data as they are otherwise. The sort is
 * stable, so rows of one group keep their order.
 *
 * Why: on a GPU the rows of one group then sit together. The gathers of a group's effect read one
 * address for a run of neighbouring rows, and the scatter of the gradient (a sum per group) reads
 * each group's rows as one contiguous run rather than one random load a row. The outputs (a log
 * density and its gradient) are sums over the rows, equal up to the order of the additions.
 */
export function rowsInIndexOrder(outputs: readonly Node[], data: BoundData): BoundData {
  const rows = permutableRows(outputs);
  if (!rows) return data;
  const key = data[rows.index.attrs.name!]?.data;
  if (!key || key.length !== rows.rows) return data;
  const perm = stableOrder(key);
  if (perm.every((p, i) => p === i)) return data;
  const out: Record<string, TensorValue> = { ...data };
  for (const leaf of rows.leaves) {
    const name = leaf.attrs.name!;
    const v = data[name];
    if (v) out[name] = permuteRows(v, perm);
  }
  return out;
}

/**
 * Whether an index that reads only data holds, over `data`, non-decreasing values within
 * [0, targets) (planProgram's sortedIndex): with the rows in index order, a hierarchical model's
 * group index does, and its scatter then reads the rows without the sorted order's indirection.
 */
export function sortedIndexOver(data: BoundData): (index: Node, targets: number) => boolean {
  const memo = new Map<string, boolean>();
  return (index, targets) => {
    const key = `${index.hash}|${targets}`;
    let sorted = memo.get(key);
    if (sorted === undefined) {
      const nodes = toposort([index]);
      const readable = nodes.every((n) => (n.op === "data" ? data[n.attrs.name!] !== undefined : n.op !== "param" && n.op !== "arg" && n.op !== "scan"));
      sorted = false;
      if (readable) {
        const v = interpret([index], data)[0]!.data;
        sorted = v.every((x, i) => x >= 0 && x < targets && (i === 0 || x >= v[i - 1]!));
      }
      memo.set(key, sorted);
    }
    return sorted;
  };
}

/**
 * Positions 0…n−1 sorted by their keys, ties in position order. Group indices are integers in a
 * range about the size of the data or less: the scatters' own stable counting sort (segmentLayout,
 * O(n + range)); other keys a comparison sort.
 */
export function stableOrder(key: ArrayLike<number>): Int32Array {
  const n = key.length;
  let lo = Infinity, hi = -Infinity, integers = true;
  for (let i = 0; i < n; i++) {
    const k = key[i]!;
    if (!Number.isInteger(k)) integers = false;
    if (k < lo) lo = k;
    if (k > hi) hi = k;
  }
  if (n > 0 && integers && hi - lo <= 4 * n + 1024) {
    return segmentLayout(Int32Array.from({ length: n }, (_, i) => key[i]! - lo), hi - lo + 1).order;
  }
  const perm = Int32Array.from({ length: n }, (_, i) => i);
  return perm.sort((a, b) => key[a]! - key[b]! || a - b);
}

/** A value with its rows (axis 0) taken in the order `perm`. */
function permuteRows(v: TensorValue, perm: Int32Array): TensorValue {
  const stride = v.shape.slice(1).reduce((a, b) => a * b, 1);
  const take = <T extends Float64Array | Float32Array>(src: T, dst: T): T => {
    for (let i = 0; i < perm.length; i++) for (let k = 0; k < stride; k++) dst[i * stride + k] = src[perm[i]! * stride + k]!;
    return dst;
  };
  return {
    dtype: v.dtype, shape: v.shape,
    data: take(v.data, new Float64Array(v.data.length)),
    ...(v.f32 ? { f32: take(v.f32, new Float32Array(v.f32.length)) } : {}),
  };
}

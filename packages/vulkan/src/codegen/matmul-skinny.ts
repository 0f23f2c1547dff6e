import { type DType, type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { glslType, literal } from "./glsl.ts";
import { broadcastIndex, unflatten } from "./index-math.ts";
import type { RenderLimits } from "./limits.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { lastAxisContiguous } from "./contiguity.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan } from "./shader.ts";
import { lastSliceOnly, mergesInLastSlice, resetSliceCount, SLICE_COUNT_SHARED, sliceCounter, sliceScratch, slicesSum, sliceSumKernel } from "./slice-sum.ts";
import { skinnySlots, skinnySplits } from "./strategy.ts";

/** How a skinny matmul [.., n, k]·[.., k, m] (few columns m) spreads over workgroups. */
export interface SkinnyLayout {
  /** Output rows of one workgroup (its row tile): min(n, groupSize). */
  readonly tileRows: number;
  /** Threads per output row: slot s of a workgroup loops over terms s, s + slots, … of its slice of k. */
  readonly slots: number;
  /** Threads per workgroup: slots · tileRows. */
  readonly threads: number;
  /** Workgroups per slice of k: batches × row tiles. */
  readonly tiles: number;
  /** Slices of k; with more than one, their partial products are summed in slice order (mergesInLastSlice). */
  readonly splits: number;
  /** Terms of k per slice. */
  readonly chunk: number;
  /** Rows of B staged in shared memory per step when slots = 1; 0 when B is read from its buffer. */
  readonly stageRows: number;
  /**
   * With one slot and A contiguous along k (X·B, X row-major): A's tile of tileRows × stageRows is
   * staged too, each row padded by one so that threads reading their own rows hit different banks.
   * A thread's own row is 4·k bytes from its neighbour's, so reading it straight from the buffer
   * is one cache line per thread and load; staged, a subgroup's load is one contiguous run.
   */
  readonly stageA: boolean;
  /** Columns merged per shared-memory round when slots > 1. */
  readonly mergeColumns: number;
}

/**
 * The layout for batches × [n,k]·[k,m]. A workgroup takes min(n, groupSize) output rows and, when
 * the rows are fewer than the threads, repeats them as slots that split k between them (Xᵀ·R:
 * D = 100 rows, 2 slots of 100 threads). With one slot every thread reads the same row of B at the
 * same step, so B is staged in shared memory, as many rows as fit in half of it (X·B).
 */
export function skinnyLayout(
  n: number, m: number, k: number, batches: number, dtype: DType, limits: RenderLimits, aContiguous = false,
): SkinnyLayout {
  const G = limits.groupSize;
  const bytes = dtype === "f64" ? 8 : 4;
  const half = limits.sharedMemoryBytes / 2;
  const tileRows = Math.min(n, G);
  const slots = skinnySlots(n, G);
  const threads = slots * tileRows;
  const tiles = batches * Math.ceil(n / tileRows);
  // A's tile is staged in blocks of aRows terms when A is contiguous along k and the tile is at
  // least a subgroup of rows; the blocks (padded) and B's rows fit in three quarters of shared memory.
  const aRows = slots === 1 && aContiguous && limits.skinnyStageA > 0 && tileRows >= 32 ? stagedBlock(tileRows, m, k, bytes, limits) : 0;
  const stageCap = aRows > 0 ? aRows : Math.max(1, Math.floor(half / (m * bytes)));
  // Loop iterations of one thread per term of k: with slots, every slots-th term; staged, one
  // step plus its share of the staging loads (B's, and A's tile row) and of the outer loop over staged blocks.
  const loopsPerTerm = slots === 1 ? 1 + m / threads + (aRows > 0 ? tileRows / threads : 0) + 1 / stageCap : 1 / slots;
  const wanted = skinnySplits(tiles, k, slots, loopsPerTerm, limits);
  const chunk = Math.ceil(k / wanted);
  // Slices of `chunk` terms, without empty ones at the end.
  const splits = k > 0 ? Math.ceil(k / chunk) : 1;
  return {
    tileRows,
    slots,
    threads,
    tiles,
    splits,
    chunk,
    stageRows: slots === 1 ? Math.max(1, Math.min(stageCap, chunk)) : 0,
    stageA: aRows > 0 && chunk >= aRows,
    mergeColumns: Math.max(1, Math.min(m, Math.floor(half / (threads * bytes)))),
  };
}

// Terms of k per staged block of A's tile (a power of two from 8 to limits.skinnyStageA, at most
// 32), or 0 when even eight terms do not fit or k is shorter than that.
function stagedBlock(tileRows: number, m: number, k: number, bytes: number, limits: RenderLimits): number {
  for (const R of [32, 16, 8]) {
    if (R <= limits.skinnyStageA && R <= k && (tileRows * (R + 1) + R * m) * bytes <= limits.sharedMemoryBytes * 0.75) return R;
  }
  return 0;
}

/**
 * A matmul with few output columns as one thread per output row (of a k-slice): the thread keeps
 * the row's m sums in registers and loops over k, reading A[i, l] (a transposed data matrix, as in
 * Xᵀ·R, is read with consecutive threads on consecutive addresses) and B's row l. Slots of a
 * workgroup that split k are summed in shared memory in slot order; k-slices write partial
 * products that are summed in slice order — by the tile's last slice to finish when they are few
 * per thread, else by a merge pass — so the result is the same on every run.
 * Operand producers (transposes, elementwise ops) are computed inline where the operand is read.
 */
export function skinnyMatmulKernels(node: Node, f: KernelFactory): KernelPlan[] {
  const [A, B] = node.inputs as [Node, Node];
  const n = A.shape[A.rank - 2]!, k = A.shape[A.rank - 1]!, m = B.shape[B.rank - 1]!;
  const batchShape = node.shape.slice(0, -2);
  const layout = skinnyLayout(n, m, k, sizeOf(batchShape), node.dtype, f.limits, lastAxisContiguous(A, f.isStored));
  const { tileRows, slots, threads, tiles, splits: P, chunk } = layout;
  const rowTiles = Math.ceil(n / tileRows);
  const T = glslType(node.dtype);
  const zero = literal(0, node.dtype);
  const mergeHere = mergesInLastSlice(P, m * P);
  const scratch = sliceScratch(node, P, mergeHere);
  const sh = f.shader();
  const batchIdx = unflatten(batchShape, "bt");
  const aAt = (l: string, sc: Scope, row = "i") => sh.r.value(A, [...broadcastIndex(A.shape.slice(0, -2), batchIdx), row, l], sc);
  const bAt = (l: string, c: string, sc: Scope) => sh.r.value(B, [...broadcastIndex(B.shape.slice(0, -2), batchIdx), l, c], sc);
  // Accumulator names end in "_<column>", so they never meet the renderer's fresh names.
  const acc = Array.from({ length: m }, (_, c) => `acc_${c}`);

  const main = new Scope(undefined, "");
  main.emit(`int tileId = gid / ${P}; int p = gid - tileId * ${P};`);
  main.emit(`int bt = tileId / ${rowTiles}; int i0 = (tileId - bt * ${rowTiles}) * ${tileRows};`);
  main.emit(`int t = int(gl_LocalInvocationIndex); int slot = t / ${tileRows}; int i = i0 + t - slot * ${tileRows};`);
  main.emit(`int kBegin = p * ${chunk}; int kEnd = min(${k}, kBegin + ${chunk});`);
  main.emit(acc.map((a) => `${T} ${a} = ${zero};`).join(" "));
  const shared = slots === 1 ? stagedRows(main, layout, m, k, T, aAt, bAt, acc, n) : slottedRows(main, layout, m, T, aAt, bAt, acc, n);

  const flat = (c: number) => `bt * ${n * m} + i * ${m} + ${c}`;
  const store = acc.map((a, c) =>
    P === 1 ? sh.storage.write(node, flat(c), a) : `${sh.bind(scratch, "write")}[p * ${node.size} + ${flat(c)}] = ${a};`,
  );
  main.emit(`if (slot == 0 && i < ${n}) { ${store.join(" ")} }`);
  if (mergeHere) {
    // The tile's last k-slice sums every slice's partials in slice order.
    const counter = sliceCounter(node, tiles);
    for (const l of lastSliceOnly(sh, counter, P)) main.emit(l);
    const merge = acc.map((_, c) => `${slicesSum(sh, node, scratch, P, `sum_${c}`, flat(c))} ${sh.storage.write(node, flat(c), `sum_${c}`)}`);
    main.emit(`if (slot == 0 && i < ${n}) { ${merge.join(" ")} }`);
    main.emit(resetSliceCount(sh, counter));
    shared.push(SLICE_COUNT_SHARED);
  }
  const pass1 = f.finish(
    {
      node,
      localSize: threads,
      workgroups: tiles * P,
      units: tiles * P * threads,
      shared,
      main: main.lines,
      title: `skinny matmul, ${tileRows} rows x ${slots} slots per workgroup, ${P} k-slices${mergeHere ? ", the last merges them" : ""}`,
    },
    sh,
  );
  return P === 1 || mergeHere ? [pass1] : [pass1, sliceSumKernel(node, scratch, P, f)];
}

type At = (l: string, sc: Scope, row?: string) => string;
type BAt = (l: string, c: string, sc: Scope) => string;

// One slot: blocks of B's rows are staged in shared memory by all threads (B is the same for
// every row of the tile), then each thread runs over the block for its row. Barriers sit in
// workgroup-uniform control flow: threads past the last row stage and wait like the others.
function stagedRows(main: Scope, layout: SkinnyLayout, m: number, k: number, T: string, aAt: At, bAt: BAt, acc: readonly string[], n: number): string[] {
  const { stageRows: R, threads } = layout;
  const step = main.child();
  step.emit(`int rows = min(${R}, kEnd - k0);`);
  step.emit("memoryBarrierShared(); barrier();");
  const load = step.child();
  load.emit(`int rr = e / ${m}; int c = e - rr * ${m};`);
  load.emit(`ppl_Bs[e] = ${bAt("(k0 + rr)", "c", load)};`);
  step.block(`for (int e = int(gl_LocalInvocationIndex); e < rows * ${m}; e += ${threads})`, load);
  if (layout.stageA) {
    // A's tile, row by row: consecutive threads read consecutive terms of one row of A. With one
    // slot there are as many threads as rows, so each thread loads R elements; all R loads are
    // issued before the first store (one at a time, each waits out the memory latency). Indices
    // are clamped into A instead of tested: the extra copies land where no thread reads.
    if (threads !== layout.tileRows) throw new Error("codegen: a staged A tile needs one thread per row");
    const e = (q: number) => `(${q * threads} + int(gl_LocalInvocationIndex))`;
    const loaded = Array.from({ length: R }, (_, q) => {
      step.emit(`int ra${q} = ${e(q)} / ${R}; int la${q} = ${e(q)} - ra${q} * ${R};`);
      return aAt(`min(k0 + la${q}, ${k - 1})`, step, `min(i0 + ra${q}, ${n - 1})`);
    });
    loaded.forEach((v, q) => step.emit(`ppl_As[ra${q} * ${R + 1} + la${q}] = ${v};`));
  }
  step.emit("memoryBarrierShared(); barrier();");
  const row = step.child();
  const term = row.child();
  const a = layout.stageA ? `ppl_As[t * ${R + 1} + l]` : aAt("(k0 + l)", term);
  acc.forEach((s, c) => term.emit(`${s} += ${a} * ppl_Bs[l * ${m} + ${c}];`));
  row.block("for (int l = 0; l < rows; l++)", term);
  step.block(`if (slot == 0 && i < ${n})`, row);
  main.block(`for (int k0 = kBegin; k0 < kEnd; k0 += ${R})`, step);
  return [`shared ${T} ppl_Bs[${R * m}];`, ...(layout.stageA ? [`shared ${T} ppl_As[${layout.tileRows * (R + 1)}];`] : [])];
}

// Several slots: slot s runs over terms kBegin + s, kBegin + s + slots, … (together the slots read
// a contiguous block of A's rows at each step), then slot 0 adds the other slots' sums in slot
// order, mergeColumns columns per round through shared memory.
function slottedRows(main: Scope, layout: SkinnyLayout, m: number, T: string, aAt: At, bAt: BAt, acc: readonly string[], n: number): string[] {
  const { slots, threads, tileRows, mergeColumns: W } = layout;
  const row = main.child();
  const term = row.child();
  const a = aAt("l", term);
  acc.forEach((s, c) => term.emit(`${s} += ${a} * ${bAt("l", `${c}`, term)};`));
  row.block(`for (int l = kBegin + slot; l < kEnd; l += ${slots})`, term);
  main.block(`if (i < ${n})`, row);
  for (let c0 = 0; c0 < m; c0 += W) {
    const cols = acc.slice(c0, c0 + W);
    if (c0 > 0) main.emit("memoryBarrierShared(); barrier();"); // the previous round's reads are done
    main.emit(cols.map((s, c) => `ppl_red[${c * threads} + t] = ${s};`).join(" "));
    main.emit("memoryBarrierShared(); barrier();");
    const merge = main.child();
    const other = merge.child();
    cols.forEach((s, c) => other.emit(`${s} += ppl_red[${c * threads} + s * ${tileRows} + t];`));
    merge.block(`for (int s = 1; s < ${slots}; s++)`, other);
    main.block("if (slot == 0)", merge);
  }
  return [`shared ${T} ppl_red[${Math.min(W, m) * threads}];`];
}

import { type DType, type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { glslType, literal } from "./glsl.ts";
import { broadcastIndex, unflatten } from "./index-math.ts";
import type { RenderLimits } from "./limits.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan } from "./shader.ts";
import { lastSliceOnly, mergesInLastSlice, resetSliceCount, SLICE_COUNT_SHARED, sliceCounter, sliceScratch, slicesSum, sliceSumKernel } from "./slice-sum.ts";
import { matmulSplits } from "./strategy.ts";

/** Tile of a tiled matmul: TM×TN outputs per workgroup, k in steps of TK, `threads` per workgroup. */
export interface MatmulTile {
  readonly tm: number;
  readonly tn: number;
  readonly tk: number;
  readonly threads: number;
  /** Outputs per thread: tm·tn / threads. */
  readonly perThread: number;
}

const nextPow2 = (x: number) => 2 ** Math.ceil(Math.log2(Math.max(1, x)));

/**
 * The tile for an [n,k]@[k,m] product: as wide as m up to 32 columns (one column per thread for
 * regression shapes with few chains), about four outputs per thread, shrunk until both operand
 * tiles fit in half the shared memory.
 */
export function matmulTile(n: number, m: number, k: number, dtype: DType, limits: RenderLimits): MatmulTile {
  const G = limits.groupSize;
  const bytes = dtype === "f64" ? 8 : 4;
  const tn = Math.min(nextPow2(m), 32, G);
  const tk = Math.min(16, nextPow2(k));
  let tm = Math.min(nextPow2(n), Math.max(1, (4 * G) / tn));
  const shared = () => (tm * (tk + 1) + tk * (tn + 1)) * bytes;
  while (tm > 1 && shared() > limits.sharedMemoryBytes / 2) tm /= 2;
  const threads = Math.min(G, tm * tn);
  return { tm, tn, tk, threads, perThread: (tm * tn) / threads };
}

// An operand that is the transpose of its last two axes is read column by column, so the
// threads loading a tile walk memory contiguously (Xᵀ of a row-major X).
function isTransposedView(x: Node): boolean {
  const perm = x.attrs.perm;
  if (x.op !== "transpose" || !perm || x.rank < 2) return false;
  const r = x.rank;
  return perm.every((p, i) => (i < r - 2 ? p === i : p === (i === r - 2 ? r - 1 : r - 2)));
}

/**
 * A matmul as tiled workgroups: each workgroup stages TM×TK of A and TK×TN of B in shared memory
 * (loaded cooperatively, consecutive threads on consecutive addresses) and accumulates its TM×TN
 * outputs from there. A long k is split into slices whose partial products are summed in slice
 * order (deterministic) — by the tile's last slice when they are few, else by a merge pass — so
 * Xᵀ·R over many rows still spreads over the device.
 */
export function tiledMatmulKernels(node: Node, f: KernelFactory): KernelPlan[] {
  const [A, B] = node.inputs as [Node, Node];
  const n = A.shape[A.rank - 2]!, k = A.shape[A.rank - 1]!, m = B.shape[B.rank - 1]!;
  const batchShape = node.shape.slice(0, -2);
  const batches = sizeOf(batchShape);
  const tile = matmulTile(n, m, k, node.dtype, f.limits);
  const { tm, tn, tk, threads, perThread } = tile;
  const tilesN = Math.ceil(n / tm), tilesM = Math.ceil(m / tn);
  const tiles = batches * tilesN * tilesM;
  // Loop iterations per k step of one thread: the two tile loads, then tk steps over its outputs.
  const loopsPerStep = Math.ceil((tm * tk) / threads) + Math.ceil((tk * tn) / threads) + tk * (perThread + 1);
  const P = matmulSplits(tiles, k, tk, loopsPerStep, f.limits);
  const chunk = Math.ceil(Math.ceil(k / P) / tk) * tk;
  const T = glslType(node.dtype);
  const zero = literal(0, node.dtype);
  const mergeHere = mergesInLastSlice(P, perThread * P);
  const scratch = sliceScratch(node, P, mergeHere);

  const sh = f.shader();
  const main = new Scope(undefined, "");
  main.emit(`int tileId = gid / ${P}; int p = gid - tileId * ${P};`);
  main.emit(`int tc = tileId % ${tilesM}; int tr = (tileId / ${tilesM}) % ${tilesN}; int bt = tileId / ${tilesM * tilesN};`);
  main.emit(`int i0 = tr * ${tm}; int j0 = tc * ${tn};`);
  main.emit(`int kBegin = p * ${chunk}; int kEnd = min(${k}, kBegin + ${chunk});`);
  main.emit("int t = int(gl_LocalInvocationIndex);");
  // This thread's outputs share one column (threads is a multiple of tn): rows row0 + j·(threads/tn).
  main.emit(`int col = t % ${tn}; int row0 = t / ${tn};`);
  main.emit(`${T} acc[${perThread}];`);
  main.emit(`for (int j = 0; j < ${perThread}; j++) acc[j] = ${zero};`);
  const batchIdx = unflatten(batchShape, "bt");
  const step = main.child();
  loadTile(step, "ppl_As", tm, tk, threads, isTransposedView(A), (r, c) => ({
    inBounds: `i0 + ${r} < ${n} && k0 + ${c} < kEnd`,
    value: (sc) => sh.r.value(A, [...broadcastIndex(A.shape.slice(0, -2), batchIdx), `(i0 + ${r})`, `(k0 + ${c})`], sc),
  }), T, zero);
  loadTile(step, "ppl_Bs", tk, tn, threads, isTransposedView(B), (r, c) => ({
    inBounds: `k0 + ${r} < kEnd && j0 + ${c} < ${m}`,
    value: (sc) => sh.r.value(B, [...broadcastIndex(B.shape.slice(0, -2), batchIdx), `(k0 + ${r})`, `(j0 + ${c})`], sc),
  }), T, zero);
  step.emit("memoryBarrierShared(); barrier();");
  step.emit(`for (int kk = 0; kk < ${tk}; kk++) {`);
  step.emit(`  ${T} b = ppl_Bs[kk * ${tn + 1} + col];`);
  step.emit(`  for (int j = 0; j < ${perThread}; j++) acc[j] += ppl_As[(row0 + j * ${threads / tn}) * ${tk + 1} + kk] * b;`);
  step.emit("}");
  step.emit("memoryBarrierShared(); barrier();");
  main.block(`for (int k0 = kBegin; k0 < kEnd; k0 += ${tk})`, step);
  const store = main.child();
  store.emit(`int i = i0 + row0 + j * ${threads / tn}; int jj = j0 + col;`);
  const flat = `(bt * ${n * m} + i * ${m} + jj)`;
  const write = P === 1 ? sh.storage.write(node, flat, "acc[j]") : `${sh.bind(scratch, "write")}[p * ${node.size} + ${flat}] = acc[j];`;
  store.emit(`if (i < ${n} && jj < ${m}) { ${write} }`);
  main.block(`for (int j = 0; j < ${perThread}; j++)`, store);
  const shared = [`shared ${T} ppl_As[${tm * (tk + 1)}];`, `shared ${T} ppl_Bs[${tk * (tn + 1)}];`];
  if (mergeHere) {
    // The tile's last k-slice sums every slice's partials of the tile in slice order.
    const counter = sliceCounter(node, tiles);
    for (const l of lastSliceOnly(sh, counter, P)) main.emit(l);
    const merge = main.child();
    merge.emit(`int i = i0 + row0 + j * ${threads / tn}; int jj = j0 + col;`);
    merge.emit(`if (i < ${n} && jj < ${m}) { ${slicesSum(sh, node, scratch, P, "sum", flat)} ${sh.storage.write(node, flat, "sum")} }`);
    main.block(`for (int j = 0; j < ${perThread}; j++)`, merge);
    main.emit(resetSliceCount(sh, counter));
    shared.push(SLICE_COUNT_SHARED);
  }
  const pass1 = f.finish(
    { node, localSize: threads, workgroups: tiles * P, units: tiles * P * threads, shared, main: main.lines, title: `tiled matmul ${tm}x${tn}x${tk}, ${P} k-slices${mergeHere ? ", the last merges them" : ""}` },
    sh,
  );
  return P === 1 || mergeHere ? [pass1] : [pass1, sliceSumKernel(node, scratch, P, f)];
}

/**
 * Statements staging a rows×cols tile in shared array `name` (row stride cols+1, so column reads
 * hit distinct banks); `columnMajor` walks it down columns, matching a transposed operand's memory.
 */
function loadTile(
  scope: Scope,
  name: string,
  rows: number,
  cols: number,
  threads: number,
  columnMajor: boolean,
  at: (r: string, c: string) => { inBounds: string; value: (sc: Scope) => string },
  T: string,
  zero: string,
): void {
  const body = scope.child();
  body.emit(`int e = int(gl_LocalInvocationIndex) + ${threads} * q;`);
  body.emit(columnMajor ? `int r = e % ${rows}; int c = e / ${rows};` : `int r = e / ${cols}; int c = e % ${cols};`);
  const { inBounds, value } = at("r", "c");
  const load = body.child();
  const v = value(load);
  load.emit(`val = ${v};`);
  body.emit(`${T} val = ${zero};`);
  body.block(`if (e < ${rows * cols} && ${inBounds})`, load);
  body.emit(`if (e < ${rows * cols}) ${name}[r * ${cols + 1} + c] = val;`);
  scope.block(`for (int q = 0; q < ${Math.ceil((rows * cols) / threads)}; q++)`, body);
}

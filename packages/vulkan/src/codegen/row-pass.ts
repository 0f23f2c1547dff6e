import { type Node } from "@ppl/tensor";
import { isElementwise } from "@ppl/tensor/internals";
import { ExprRenderer } from "./expr.ts";
import { glslType, literal } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import type { RenderLimits } from "./limits.ts";
import { laneTree, laneTreeShared } from "./output-lanes.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan } from "./shader.ts";
import { sliceScratch, sliceSumKernel } from "./slice-sum.ts";
import type { Storage } from "./storage.ts";

// One pass over the rows of a data matrix. A regression's gradient reads its design matrix X
// [N, K] twice: η = X·B, then, after the per-row terms (the log likelihood, the residuals r),
// Xᵀ·r. Both products are bound by the bytes of X, and between them the rows' terms are a kernel
// and the row sums more. Every value in between is a function of one row, so one kernel can do
// it all for a block of rows at a time: stage the block of X in shared memory, compute its η,
// the row terms and their contribution to each row sum and to Xᵀ·r, then the next block. Each
// workgroup writes its partial sums; a merge pass adds them in workgroup order (slice-sum.ts),
// so the result is the same on every run. X is read once.

/**
 * A fused row pass: η = X·B, the values of one row of η (row-local nodes), the sums over rows of
 * those (reductions) and the products Xᵀ·R with a row-local R (contractions).
 */
export interface RowPass {
  readonly kind: "row-pass";
  /** The stored matrix [N, K] read once. */
  readonly X: Node;
  /** The product X·B [N, C] the row terms start from. */
  readonly eta: Node;
  /** η is read outside the pass (or is an output), so the pass writes it too. */
  readonly writeEta: boolean;
  /** reduce_sum nodes over the row axis of a row-local value. */
  readonly reductions: readonly Node[];
  /** matmul(transpose(X), R) [K, C'] nodes with R row-local (rows on its first axis). */
  readonly contractions: readonly Node[];
  /** Row-local nodes the schedule stored that the pass computes inline instead (their storage dropped). */
  readonly absorbed: ReadonlySet<Node>;
  /** The axis of each row-local node (and of η) that runs over X's rows. */
  readonly rowAxis: ReadonlyMap<Node, number>;
  /** Every node the pass depends on: false for those not downstream of η. */
  dependsOnEta(n: Node): boolean;
}

/** True for a row pass among the stored nodes of a run order. */
export function isRowPass(x: Node | RowPass): x is RowPass {
  return (x as RowPass).kind === "row-pass";
}

/** The kernel nodes a row pass replaces. */
export function rowPassMembers(p: RowPass): Node[] {
  return [p.eta, ...p.reductions, ...p.contractions, ...p.absorbed];
}

type Axis = number | "free" | "bad";

/**
 * The row passes of a scheduled graph: for each stored product η = X·B of a stored X [N, K]
 * (K at most a workgroup, few columns) whose row-local values end only in sums over rows and in
 * Xᵀ·R, the pass that computes them in one kernel. `order` is the graph's nodes inputs first,
 * `kernels` the stored nodes in run order.
 */
export function findRowPasses(
  order: readonly Node[], outputs: readonly Node[], kernels: readonly Node[], isStored: (n: Node) => boolean, limits: RenderLimits,
): RowPass[] {
  const users = new Map<Node, Node[]>();
  for (const n of order) for (const x of n.inputs) users.set(x, [...(users.get(x) ?? []), n]);
  const outs = new Set(outputs);
  const taken = new Set<Node>();
  const passes: RowPass[] = [];
  for (const eta of kernels) {
    if (taken.has(eta) || !isRowProduct(eta, isStored, limits)) continue;
    const pass = rowPassOf(eta, order, users, outs, isStored, limits);
    if (!pass) continue;
    const members = rowPassMembers(pass);
    if (members.some((m) => taken.has(m))) continue;
    members.forEach((m) => taken.add(m));
    passes.push(pass);
  }
  return passes;
}

// η = X·B with X stored [N, K], no batch axes, K within a workgroup's threads and few columns.
function isRowProduct(n: Node, isStored: (n: Node) => boolean, limits: RenderLimits): boolean {
  if (n.op !== "matmul" || n.rank !== 2) return false;
  const [X, B] = n.inputs as [Node, Node];
  if (X.rank !== 2 || B.rank !== 2 || !isStored(X) || X.dtype !== n.dtype) return false;
  const [N, K] = X.shape as [number, number];
  return N >= 2 && K >= 1 && K <= limits.groupSize && n.shape[1]! <= limits.skinnyMatmulColumns;
}

function rowPassOf(
  eta: Node, order: readonly Node[], users: ReadonlyMap<Node, Node[]>, outs: ReadonlySet<Node>, isStored: (n: Node) => boolean, limits: RenderLimits,
): RowPass | undefined {
  const X = eta.inputs[0]!;
  const axis = new Map<Node, Axis>();
  for (const n of order) axis.set(n, n === eta ? 0 : axisThrough(n, n.inputs.map((x) => axis.get(x)!)));
  const rowAxis = new Map<Node, number>();
  for (const [n, a] of axis) if (typeof a === "number") rowAxis.set(n, a);
  const reductions = new Set<Node>();
  const contractions = new Set<Node>();
  const absorbed = new Set<Node>();
  let writeEta = outs.has(eta);
  for (const [n, a] of rowAxis) {
    if (n !== eta && isStored(n)) {
      if (outs.has(n)) return undefined; // a row-local output must be written whole
      absorbed.add(n);
    }
    for (const u of users.get(n) ?? []) {
      if (rowAxis.has(u)) continue;
      const sameType = u.dtype === eta.dtype;
      if (sameType && u.op === "reduce_sum" && u.attrs.axes!.length === 1 && u.attrs.axes![0] === a && u.size <= limits.groupSize) reductions.add(u);
      else if (sameType && isContraction(u, X, isStored, limits) && u.inputs[1] === n && a === 0) contractions.add(u);
      else if (n === eta) writeEta = true;
      else return undefined; // a row-local value escapes the pass
    }
  }
  if (reductions.size + contractions.size === 0) return undefined;
  const pass: RowPass = {
    kind: "row-pass", X, eta, writeEta, reductions: [...reductions], contractions: [...contractions], absorbed, rowAxis,
    dependsOnEta: (n) => (axis.get(n) ?? "free") !== "free",
  };
  return rowPassLayout(pass, limits) ? pass : undefined;
}

// Xᵀ·R [K, C'] with Xᵀ an inline transpose of the pass's X.
function isContraction(u: Node, X: Node, isStored: (n: Node) => boolean, limits: RenderLimits): boolean {
  if (u.op !== "matmul" || u.rank !== 2) return false;
  const [A, R] = u.inputs as [Node, Node];
  const p = A.attrs.perm;
  // With one column, Xᵀ is the reshape of X [N, 1] to [1, N].
  const transposed = (A.op === "transpose" && p?.[0] === 1 && p[1] === 0) || (A.op === "reshape" && X.shape[1] === 1 && A.shape[0] === 1);
  return transposed && A.inputs[0] === X && !isStored(A) && R.rank === 2 && R.shape[1]! <= limits.skinnyMatmulColumns;
}

// Where a node's row axis is, given its inputs': free of η, row-local on one axis, or neither.
function axisThrough(n: Node, ins: readonly Axis[]): Axis {
  if (ins.every((a) => a === "free")) return "free";
  if (ins.includes("bad")) return "bad";
  if (n.op === "transpose") return n.attrs.perm!.indexOf(ins[0] as number);
  if (n.op === "reshape") return reshapedAxis(n.inputs[0]!.shape, n.shape, ins[0] as number);
  if (!isElementwise(n.op) && n.op !== "broadcast_to") return "bad";
  let out: number | undefined;
  for (const [k, a] of ins.entries()) {
    if (typeof a !== "number") continue;
    const x = n.inputs[k]!;
    const o = a + n.rank - x.rank;
    if (n.shape[o] !== x.shape[a] || (out !== undefined && out !== o)) return "bad";
    out = o;
  }
  return out!;
}

// A reshape that only adds or drops axes of size 1 (a transpose of one chain's [N, 1], as the
// optimizer writes it) keeps the row axis, at its place among the other axes; any other moves rows.
function reshapedAxis(from: readonly number[], to: readonly number[], a: number): Axis {
  const kept = (shape: readonly number[]) => shape.flatMap((d, i) => (d === 1 ? [] : [[d, i] as const]));
  const [x, y] = [kept(from), kept(to)];
  if (x.length !== y.length || x.some(([d], k) => d !== y[k]![0])) return "bad";
  const k = x.findIndex(([, i]) => i === a);
  return k < 0 ? "bad" : y[k]![1];
}

/** How a row pass spreads over workgroups. */
export interface RowPassLayout {
  /** Rows staged in shared memory at a time. */
  readonly blockRows: number;
  /** Rows of one workgroup: whole blocks. */
  readonly chunk: number;
  /** Workgroups, each writing its partial sums. */
  readonly workgroups: number;
  /** Threads per workgroup. */
  readonly threads: number;
  /** Slots of Xᵀ·R: threads per column of X, each taking every slots-th row of a block. */
  readonly slots: number;
}

/**
 * The layout of a row pass, or undefined when not even one row of X fits in shared memory beside
 * the rest (or row passes are off: limits.rowPassRows 0). Blocks are as many rows as fit in three
 * quarters of shared memory (at most limits.rowPassRows, a power of two up to 64); the
 * rows are split into about half of busyGroups workgroups, and more where the driver's loop
 * budget (lavapipe) caps the blocks one workgroup may run.
 */
export function rowPassLayout(p: RowPass, limits: RenderLimits): RowPassLayout | undefined {
  const [N, K] = p.X.shape as [number, number];
  const C = p.eta.shape[1]!;
  const G = limits.groupSize;
  const bytes = p.eta.dtype === "f64" ? 8 : 4;
  const slots = Math.max(1, Math.floor(G / K));
  const widths = p.contractions.map((m) => m.shape[1]!);
  const shared = (rows: number) =>
    (rows * (K + 1) + K * C + rows * C + widths.reduce((s, w) => s + rows * w, 0) + slots * K * Math.max(0, ...widths) + (p.reductions.length > 0 ? G : 0)) * bytes;
  const blockRows = [64, 32, 16, 8, 4, 2, 1].filter((r) => r <= limits.rowPassRows).map((r) => Math.min(r, N)).find((r) => shared(r) <= limits.sharedMemoryBytes * 0.75);
  if (blockRows === undefined) return undefined;
  const loopsPerBlock = 2 + Math.ceil((blockRows * C) / G) * (K + 1) +
    p.reductions.reduce((s, r) => s + Math.ceil(blockRows / reductionLanes(r.size, G)), 0) +
    widths.reduce((s, w) => s + Math.ceil((blockRows * w) / G) + Math.ceil(blockRows / slots), 0);
  const blocks = Math.ceil(N / blockRows);
  const perGroup = Math.max(1, Math.floor(limits.maxLoopIterations / 2 / loopsPerBlock));
  const wanted = Math.max(Math.ceil(blocks / perGroup), Math.min(blocks, Math.max(1, Math.floor(limits.busyGroups / 2))));
  const chunk = Math.ceil(blocks / wanted) * blockRows;
  return { blockRows, chunk, workgroups: Math.ceil(N / chunk), threads: G, slots };
}

// Threads per output of a row sum: a power of two, together at most a workgroup.
function reductionLanes(outputs: number, G: number): number {
  let L = 1;
  while (L * 2 * outputs <= G) L *= 2;
  return L;
}

/**
 * The kernels of a row pass: the pass itself (every workgroup its rows, block by block: X's block
 * staged, η, the row terms, their sums and Xᵀ·R accumulated in registers, then its partials of
 * each written), and one merge per reduction and contraction, summing the workgroups' partials in order.
 */
export function rowPassKernels(p: RowPass, f: KernelFactory): KernelPlan[] {
  const layout = rowPassLayout(p, f.limits)!;
  const { blockRows: RB, chunk, workgroups: P, threads: G, slots: S } = layout;
  const { X, eta } = p;
  const [N, K] = X.shape as [number, number];
  const C = eta.shape[1]!;
  const B = eta.inputs[1]!;
  const Ty = glslType(eta.dtype);
  const zero = literal(0, eta.dtype);
  const sh = f.shader();
  // η's block lives in shared memory; the absorbed nodes are computed where read.
  const storage: Storage = {
    read: (n, idx, sc) => (n === eta ? `ppl_eta[(${idx[0]} - n0) * ${C} + ${idx[1]}]` : p.absorbed.has(n) ? undefined : sh.storage.read(n, idx, sc)),
    write: sh.storage.write,
  };
  const r = new ExprRenderer(storage, sh.r);
  const scratch = new Map([...p.reductions, ...p.contractions].map((n) => [n, sliceScratch(n, P, false)] as const));
  const main = new Scope(undefined, "");
  main.emit("int t = int(gl_LocalInvocationIndex);");
  // B is the same for every row: staged once.
  const stageB = main.child();
  stageB.emit(`int q = e / ${C}; int c = e - q * ${C};`);
  stageB.emit(`ppl_Bs[e] = ${r.value(B, ["q", "c"], stageB)};`);
  main.block(`for (int e = t; e < ${K * C}; e += ${G})`, stageB);
  main.emit(`int rowBegin = gid * ${chunk}; int rowEnd = min(${N}, rowBegin + ${chunk});`);
  const lanes = p.reductions.map((n) => reductionLanes(n.size, G));
  p.reductions.forEach((n, j) => {
    main.emit(`${Ty} red${j} = ${zero}; int ro${j} = t % ${n.size}; int rl${j} = t / ${n.size};`);
  });
  const cols = p.contractions.map((n) => n.shape[1]!);
  if (p.contractions.length > 0) main.emit(`int kk = t % ${K}; int slot = t / ${K};`);
  p.contractions.forEach((_, j) => main.emit(Array.from({ length: cols[j]! }, (_, c) => `${Ty} con${j}_${c} = ${zero};`).join(" ")));

  const block = main.child();
  block.emit(`int rows = min(${RB}, rowEnd - n0);`);
  block.emit("memoryBarrierShared(); barrier();"); // the previous block's reads are done
  // X's block, rows n0.. contiguous in X: every load issued before the first store (each waits out
  // the memory latency); indices are clamped into X, and the extra copies land where no thread reads.
  const loads = Math.ceil((RB * K) / G);
  const loaded = Array.from({ length: loads }, (_, q) => {
    block.emit(`int xe${q} = ${q * G} + t; int xr${q} = xe${q} / ${K}; int xk${q} = xe${q} - xr${q} * ${K};`);
    return r.value(X, [`min(n0 + xr${q}, ${N - 1})`, `xk${q}`], block);
  });
  loaded.forEach((v, q) => block.emit(`${q * G + G > RB * K ? `if (xe${q} < ${RB * K}) ` : ""}ppl_Xs[xr${q} * ${K + 1} + xk${q}] = ${v};`));
  block.emit("memoryBarrierShared(); barrier();");
  // η of the block's rows, summed over k in order (as the one-thread-per-output matmul does).
  const etaBody = block.child();
  etaBody.emit(`int rr = e / ${C}; int c = e - rr * ${C};`);
  etaBody.emit(`${Ty} s = ${zero};`);
  etaBody.emit(`for (int q = 0; q < ${K}; q++) s += ppl_Xs[rr * ${K + 1} + q] * ppl_Bs[q * ${C} + c];`);
  etaBody.emit("ppl_eta[e] = s;");
  if (p.writeEta) etaBody.emit(sh.storage.write(eta, `(n0 + rr) * ${C} + c`, "s"));
  block.block(`for (int e = t; e < rows * ${C}; e += ${G})`, etaBody);
  block.emit("memoryBarrierShared(); barrier();");
  // Each row sum: thread t adds output t % O over every L-th row of the block.
  p.reductions.forEach((n, j) => {
    const v = n.inputs[0]!;
    const a = p.rowAxis.get(v)!;
    const body = block.child();
    const idx = unflatten(n.shape, `ro${j}`);
    idx.splice(a, 0, "(n0 + rr)");
    body.emit(`red${j} += ${r.value(v, idx, body)};`);
    block.block(`if (rl${j} < ${lanes[j]}) for (int rr = rl${j}; rr < rows; rr += ${lanes[j]})`, body);
  });
  // The right-hand sides of Xᵀ·R for the block's rows, into shared memory.
  p.contractions.forEach((n, j) => {
    const body = block.child();
    body.emit(`int rr = e / ${cols[j]}; int c = e - rr * ${cols[j]};`);
    body.emit(`ppl_R${j}[e] = ${r.value(n.inputs[1]!, ["(n0 + rr)", "c"], body)};`);
    block.block(`for (int e = t; e < rows * ${cols[j]}; e += ${G})`, body);
  });
  if (p.contractions.length > 0) {
    block.emit("memoryBarrierShared(); barrier();");
    const body = block.child();
    body.emit(`${Ty} x = ppl_Xs[rr * ${K + 1} + kk];`);
    p.contractions.forEach((_, j) => {
      for (let c = 0; c < cols[j]!; c++) body.emit(`con${j}_${c} += x * ppl_R${j}[rr * ${cols[j]} + ${c}];`);
    });
    block.block(`if (slot < ${S}) for (int rr = slot; rr < rows; rr += ${S})`, body);
  }
  main.block(`for (int n0 = rowBegin; n0 < rowEnd; n0 += ${RB})`, block);

  // The workgroup's partials: each row sum's lanes in a fixed tree, each contraction's slots in order.
  p.reductions.forEach((n, j) => {
    const tree = main.child();
    tree.emit(`int j = rl${j}; ${Ty} acc = j < ${lanes[j]} ? red${j} : ${zero};`);
    for (const l of laneTree(lanes[j]!, n.size, `t < ${n.size}`, (sum) => `${sh.bind(scratch.get(n)!, "write")}[gid * ${n.size} + t] = ${sum};`)) tree.emit(l);
    main.emit("memoryBarrierShared(); barrier();");
    main.block("", tree);
  });
  p.contractions.forEach((n, j) => {
    main.emit("memoryBarrierShared(); barrier();");
    const w = cols[j]!;
    main.emit(`if (slot < ${S}) { ${Array.from({ length: w }, (_, c) => `ppl_cm[(slot * ${K} + kk) * ${w} + ${c}] = con${j}_${c};`).join(" ")} }`);
    main.emit("memoryBarrierShared(); barrier();");
    const out = main.child();
    for (let c = 0; c < w; c++) {
      out.emit(`${Ty} s${c} = ${zero}; for (int q = 0; q < ${S}; q++) s${c} += ppl_cm[(q * ${K} + t) * ${w} + ${c}];`);
      out.emit(`${sh.bind(scratch.get(n)!, "write")}[gid * ${n.size} + t * ${w} + ${c}] = s${c};`);
    }
    main.block(`if (t < ${K})`, out);
  });

  const widest = Math.max(0, ...cols);
  const shared = [
    `shared ${Ty} ppl_Bs[${K * C}];`,
    `shared ${Ty} ppl_Xs[${RB * (K + 1)}];`,
    `shared ${Ty} ppl_eta[${RB * C}];`,
    ...cols.map((w, j) => `shared ${Ty} ppl_R${j}[${RB * w}];`),
    ...(widest > 0 ? [`shared ${Ty} ppl_cm[${S * K * widest}];`] : []),
    ...(p.reductions.length > 0 ? [laneTreeShared(eta.dtype, G)] : []),
  ];
  const count = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  const what = [count(p.reductions.length, "row sum"), count(p.contractions.length, "product") + " with Xᵀ", ...(p.writeEta ? ["η written"] : [])].join(", ");
  const pass = f.finish(
    {
      node: eta, localSize: G, workgroups: P, units: P * G, shared, main: main.lines,
      title: `row pass over X [${N},${K}] in blocks of ${RB} rows, ${chunk} rows per workgroup: η = X·B, ${what}`,
    },
    sh,
  );
  return [pass, ...[...scratch].map(([n, s]) => sliceSumKernel(n, s, P, f))];
}

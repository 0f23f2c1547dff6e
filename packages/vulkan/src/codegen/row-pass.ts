import { type Node } from "@ppl/tensor";
import { isElementwise } from "@ppl/tensor/ir";
import { ExprRenderer } from "./expr.ts";
import { glslType, literal } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import type { RenderLimits } from "./limits.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan, ScratchBuffer, ShaderBuilder } from "./shader.ts";
import { sliceScratch, sliceSumKernel } from "./slice-sum.ts";
import type { Storage } from "./storage.ts";

// One pass over the rows of a data matrix. A regression's gradient reads its design matrix X
// [N, K] twice: η = X·B, then, after the per-row terms (the log likelihood, the residuals r),
// Xᵀ·r. Both products are bound by the bytes of X, and between them the rows' terms are a kernel
// and the row sums more. Every value in between is a function of one row, so one kernel can do
// it a few rows at a time, with the rows of X in registers: their η, the row terms and their
// contribution to each row sum and to Xᵀ·r, then the next rows (rowPassKernels; with many columns
// of η, row-pass-wide.ts). Each workgroup writes its partial sums; a merge pass adds them in
// workgroup order (slice-sum.ts), so the result is the same on every run. X is read once.

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
  /**
   * η has more columns than a team's lanes can share (limits.skinnyMatmulColumns: many chains):
   * every row-local value is indexed by a row and a column of η and nothing else, so a thread
   * can take one column (row-pass-wide.ts).
   */
  readonly wide: boolean;
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
  return findRowPassesWithin(order, outputs, kernels, isStored, limits, (p) => p.wide || rowPassLayout(p, limits) !== undefined);
}

/** What decides which products can start a row pass: its terms, its columns, whether passes are on. */
export type RowPassBounds = Pick<RenderLimits, "rowPassTeams" | "groupSize" | "skinnyMatmulColumns">;

/**
 * The row passes of a scheduled graph within `bounds`, each kept only where `fits` accepts it
 * (a renderer's own limits on its registers and shared memory).
 */
export function findRowPassesWithin(
  order: readonly Node[], outputs: readonly Node[], kernels: readonly Node[], isStored: (n: Node) => boolean, bounds: RowPassBounds,
  fits: (p: RowPass) => boolean,
): RowPass[] {
  if (bounds.rowPassTeams < 1) return [];
  const users = new Map<Node, Node[]>();
  for (const n of order) for (const x of n.inputs) (users.get(x) ?? users.set(x, []).get(x)!).push(n);
  const outs = new Set(outputs);
  const taken = new Set<Node>();
  const passes: RowPass[] = [];
  for (const eta of kernels) {
    if (taken.has(eta) || !isRowProduct(eta, isStored, bounds)) continue;
    const pass = rowPassOf(eta, order, users, outs, isStored, bounds);
    if (!pass || !fits(pass)) continue;
    const members = rowPassMembers(pass);
    if (members.some((m) => taken.has(m))) continue;
    members.forEach((m) => taken.add(m));
    passes.push(pass);
  }
  return passes;
}

/** Most terms of X's rows a thread of a wide row pass holds with its column of B and of Xᵀ·R. */
export const WIDE_TERMS = 64;

// η = X·B with X stored [N, K], no batch axes: K within a workgroup's threads and few columns, or
// (wide) many columns and K within what a thread holds in registers.
function isRowProduct(n: Node, isStored: (n: Node) => boolean, limits: RowPassBounds): boolean {
  if (n.op !== "matmul" || n.rank !== 2) return false;
  const [X, B] = n.inputs as [Node, Node];
  if (X.rank !== 2 || B.rank !== 2 || !isStored(X) || X.dtype !== n.dtype) return false;
  const [N, K] = X.shape as [number, number];
  const narrow = K <= limits.groupSize && n.shape[1]! <= limits.skinnyMatmulColumns;
  return N >= 2 && K >= 1 && (narrow || K <= WIDE_TERMS);
}

function rowPassOf(
  eta: Node, order: readonly Node[], users: ReadonlyMap<Node, Node[]>, outs: ReadonlySet<Node>, isStored: (n: Node) => boolean, limits: RowPassBounds,
): RowPass | undefined {
  const X = eta.inputs[0]!;
  const [N] = X.shape as [number];
  const C = eta.shape[1]!;
  const wide = C > limits.skinnyMatmulColumns;
  const follow = (seed: number) => {
    const axis = new Map<Node, Axis>();
    for (const n of order) axis.set(n, n === eta ? seed : axisThrough(n, n.inputs.map((x) => axis.get(x)!)));
    return axis;
  };
  const axis = follow(0);
  const rowAxis = new Map<Node, number>();
  for (const [n, a] of axis) if (typeof a === "number") rowAxis.set(n, a);
  // Wide: each row-local value is [N, C] in some order (size-1 axes aside), its columns η's.
  const colAxis = wide ? follow(1) : undefined;
  if (colAxis && [...rowAxis.keys()].some((n) => typeof colAxis.get(n) !== "number" || n.size !== N * C)) return undefined;
  const columns = wide ? C : limits.skinnyMatmulColumns;
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
      if (sameType && u.op === "reduce_sum" && u.attrs.axes!.length === 1 && u.attrs.axes![0] === a && (wide || u.size <= limits.groupSize)) reductions.add(u);
      else if (sameType && isContraction(u, X, isStored, columns) && u.inputs[1] === n && a === 0 && (!wide || colAxis!.get(n) === 1)) contractions.add(u);
      else if (n === eta) writeEta = true;
      else return undefined; // a row-local value escapes the pass
    }
  }
  if (reductions.size + contractions.size === 0) return undefined;
  return {
    kind: "row-pass", X, eta, writeEta, reductions: [...reductions], contractions: [...contractions], absorbed, rowAxis, wide,
    dependsOnEta: (n) => (axis.get(n) ?? "free") !== "free",
  };
}

/**
 * The run order of the stored nodes with each row pass in place of its members: at its last
 * member's place, with the kernels before it that depend on its η moved to just after it.
 */
export function withRowPasses(kernels: readonly Node[], passes: readonly RowPass[]): (Node | RowPass)[] {
  let items: (Node | RowPass)[] = [...kernels];
  for (const p of passes) {
    const members = new Set(rowPassMembers(p));
    const last = Math.max(...items.flatMap((it, i) => (!isRowPass(it) && members.has(it) ? [i] : [])));
    const downstream = (it: Node | RowPass) => (isRowPass(it) ? rowPassMembers(it).some((m) => p.dependsOnEta(m)) : p.dependsOnEta(it));
    const rest = items.filter((it) => isRowPass(it) || !members.has(it));
    const cut = items.slice(0, last).filter((it) => isRowPass(it) || !members.has(it)).length;
    const before = rest.slice(0, cut);
    items = [...before.filter((it) => !downstream(it)), p, ...before.filter(downstream), ...rest.slice(cut)];
  }
  return items;
}

// Xᵀ·R [K, C'] with Xᵀ an inline transpose of the pass's X.
function isContraction(u: Node, X: Node, isStored: (n: Node) => boolean, columns: number): boolean {
  if (u.op !== "matmul" || u.rank !== 2) return false;
  const [A, R] = u.inputs as [Node, Node];
  const p = A.attrs.perm;
  // With one column, Xᵀ is the reshape of X [N, 1] to [1, N].
  const transposed = (A.op === "transpose" && p?.[0] === 1 && p[1] === 0) || (A.op === "reshape" && X.shape[1] === 1 && A.shape[0] === 1);
  return transposed && A.inputs[0] === X && !isStored(A) && R.rank === 2 && R.shape[1]! <= columns;
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

/** Lanes of a team that sums through shared memory: one row of X over 32 lanes, each lane every 32nd term. */
const TEAM = 32;

/** Most values of X a lane holds at a step (its registers). */
const LANE_VALUES = 32;

/** How a row pass spreads over workgroups. */
export interface RowPassLayout {
  /** Lanes of a team: a subgroup's (limits.rowPassSubgroup, shuffles), or 32 summing through shared memory. */
  readonly lanes: number;
  /** The team is a subgroup and sums each row's η by shuffles, with no workgroup barrier in its loop. */
  readonly shuffles: boolean;
  /** Teams of `lanes` threads per workgroup; a team takes `teamRows` rows at each step. */
  readonly teams: number;
  /** Rows of one team per step: its lanes hold those rows of X in registers, ceil(K/lanes) terms each. */
  readonly teamRows: number;
  /** Terms of a row each lane holds: ceil(K / lanes). */
  readonly laneTerms: number;
  /** Rows of one workgroup: whole steps of teams · teamRows rows. */
  readonly chunk: number;
  /** Workgroups, each writing its partial sums. */
  readonly workgroups: number;
  /** Threads per workgroup: teams · lanes. */
  readonly threads: number;
  /** Elements of the shared array the partial η (through shared memory) and, at the end, the partial sums go through. */
  readonly scratchShared: number;
}

/**
 * The layout of a row pass, or undefined when even one team does not fit in shared memory (or row
 * passes are off: limits.rowPassTeams 0). A team holds teamRows rows (teamRows · C ≤ lanes partial
 * η a lane, at most 32 values of X a lane), a workgroup as many teams as fit in three quarters of
 * shared memory (at most limits.rowPassTeams); the rows are split into about half of busyGroups
 * workgroups, and more where the driver's loop budget (lavapipe) caps one workgroup's steps.
 */
export function rowPassLayout(p: RowPass, limits: RenderLimits): RowPassLayout | undefined {
  const [N, K] = p.X.shape as [number, number];
  const C = p.eta.shape[1]!;
  const bytes = p.eta.dtype === "f64" ? 8 : 4;
  const shuffles = limits.rowPassSubgroup > 0;
  const T = shuffles ? limits.rowPassSubgroup : TEAM;
  const laneTerms = Math.ceil(K / T);
  const teamRows = Math.max(1, Math.min(Math.floor(T / C), Math.floor(LANE_VALUES / laneTerms)));
  const S = teamRows * C;
  const widths = p.contractions.map((m) => m.shape[1]!);
  const sums = p.reductions.map((r) => Math.ceil((teamRows * r.size) / T));
  const layoutFor = (teams: number) => {
    const scratchShared = teams * Math.max(shuffles ? 0 : S * (T + 1), K * Math.max(0, ...widths), T * Math.max(0, ...sums), 1);
    // η (two halves of it with shuffles) and, through shared memory, the right-hand sides R.
    const shared = (scratchShared + (shuffles ? 2 * teams * S : teams * S + widths.reduce((s, w) => s + teams * teamRows * w, 0))) * bytes;
    return { scratchShared, fits: shared <= limits.sharedMemoryBytes * 0.75 };
  };
  let teams = 1;
  while (teams * 2 <= Math.min(limits.rowPassTeams, limits.groupSize / T) && layoutFor(teams * 2).fits) teams *= 2;
  if (limits.rowPassTeams < 1 || limits.groupSize < T || !layoutFor(teams).fits) return undefined;
  // Loop iterations of a thread per step: through shared memory, the sum of a partial η over the
  // team's lanes; with shuffles, none but the step's own.
  const loopsPerStep = shuffles ? 2 : T + 2;
  const rowsPerStep = teams * teamRows;
  const steps = Math.ceil(N / rowsPerStep);
  const perGroup = Math.max(1, Math.floor((limits.maxLoopIterations / 2 - K - T) / loopsPerStep));
  const wanted = Math.max(Math.ceil(steps / perGroup), Math.min(steps, Math.max(1, Math.floor(limits.busyGroups / 2))));
  const chunk = Math.ceil(steps / wanted) * rowsPerStep;
  return {
    lanes: T, shuffles, teams, teamRows, laneTerms, chunk, workgroups: Math.ceil(N / chunk), threads: teams * T,
    scratchShared: layoutFor(teams).scratchShared,
  };
}

/** What both forms of a row pass render alike (this file's and row-pass-wide.ts's). */
export interface PassParts {
  /** A renderer reading η through `etaAt` (the pass holds it on chip) and computing absorbed nodes inline. */
  readonly r: ExprRenderer;
  /** Each reduction's and contraction's partial sums, `workgroups` of them. */
  readonly scratch: ReadonlyMap<Node, ScratchBuffer>;
  /** What the pass computes, for its title. */
  readonly what: string;
  /** The pass kernel followed by one merge of each partial-sum buffer, in workgroup order. */
  withMerges(pass: KernelPlan): KernelPlan[];
}

/** The renderer, partial sums, title and merges of a row pass of `workgroups` workgroups. */
export function passParts(p: RowPass, f: KernelFactory, sh: ShaderBuilder, workgroups: number, etaAt: (idx: readonly string[]) => string): PassParts {
  const storage: Storage = {
    read: (n, idx, sc) => (n === p.eta ? etaAt(idx) : p.absorbed.has(n) ? undefined : sh.storage.read(n, idx, sc)),
    write: sh.storage.write,
  };
  // Sums whose readers add the partials themselves share their scratch with those readers and have no merge.
  const scratch = new Map([...p.reductions, ...p.contractions].map((n) => [n, f.sliced?.get(n)?.scratch ?? sliceScratch(n, workgroups, false)] as const));
  const count = (k: number, what: string) => `${k} ${what}${k === 1 ? "" : "s"}`;
  return {
    r: new ExprRenderer(storage, sh.r),
    scratch,
    what: [count(p.reductions.length, "row sum"), count(p.contractions.length, "product") + " with Xᵀ", ...(p.writeEta ? ["η written"] : [])].join(", "),
    withMerges: (pass) => [pass, ...[...scratch].filter(([n]) => !f.sliced?.has(n)).map(([n, buf]) => sliceSumKernel(n, buf, workgroups, f))],
  };
}

/**
 * The kernels of a (narrow) row pass: the pass itself, and one merge per reduction and
 * contraction summing the workgroups' partials in order. In the pass, each team of lanes takes
 * teamRows rows at a step: every lane loads its terms of those rows into registers (all loads in
 * flight at once), forms its share of each row's η with B's terms it holds, and the shares are
 * summed, one η a lane: by subgroup shuffles where the team is a subgroup, else through shared
 * memory in lane order. Lanes then compute the rows' terms (the row sums' and the right-hand sides
 * R, as many pairs of row and column a lane as there are), and each lane adds its terms of X times
 * R to its registers of Xᵀ·R. At the end the teams' sums are added in team order into the
 * workgroup's partials.
 */
export function rowPassKernels(p: RowPass, f: KernelFactory): KernelPlan[] {
  const layout = rowPassLayout(p, f.limits)!;
  const { lanes: T, shuffles, teams: W, teamRows: RW, laneTerms: KL, chunk, workgroups: P, threads: G } = layout;
  const { X, eta } = p;
  const [N, K] = X.shape as [number, number];
  const C = eta.shape[1]!;
  const S = RW * C;
  const B = eta.inputs[1]!;
  const Ty = glslType(eta.dtype);
  const zero = literal(0, eta.dtype);
  const sh = f.shader();
  // η of the team's rows lives in shared memory; the absorbed nodes are computed where read.
  // With shuffles η goes through two halves of ppl_eta, a step's the other half from the step
  // before's, so that a step's writes never meet the last step's reads (one barrier a step).
  const { r, scratch, what, withMerges } = passParts(p, f, sh, P, (idx) => `ppl_eta[${shuffles ? "etaHalf + " : ""}w * ${S} + ((${idx[0]}) - base) * ${C} + ${idx[1]}]`);
  const terms = Array.from({ length: KL }, (_, j) => j);
  const main = new Scope(undefined, "");
  // A team of shuffles is a subgroup: its lanes are the subgroup's, whatever order the driver
  // gives the workgroup's invocations.
  main.emit(shuffles
    ? `int w = int(gl_SubgroupID); int l = int(gl_SubgroupInvocationID); int t = w * ${T} + l;`
    : `int t = int(gl_LocalInvocationIndex); int w = t / ${T}; int l = t - w * ${T};`);
  // The lane's terms of B, the same at every row (zero past K).
  for (const j of terms) {
    main.emit(`int k${j} = l + ${T * j};`);
    for (let c = 0; c < C; c++) main.emit(`${Ty} b${j}_${c} = k${j} < ${K} ? ${r.value(B, [`min(k${j}, ${K - 1})`, `${c}`], main)} : ${zero};`);
  }
  const cols = p.contractions.map((n) => n.shape[1]!);
  p.contractions.forEach((_, q) => main.emit(terms.map((j) => Array.from({ length: cols[q]! }, (_, c) => `${Ty} g${q}_${j}_${c} = ${zero};`).join(" ")).join(" ")));
  const pairsOf = (n: Node) => Math.ceil((RW * n.size) / T);
  p.reductions.forEach((n, q) => main.emit(Array.from({ length: pairsOf(n) }, (_, m) => `${Ty} red${q}_${m} = ${zero};`).join(" ")));
  main.emit(`int rowBegin = gid * ${chunk}; int rowEnd = min(${N}, rowBegin + ${chunk});`);

  const step = main.child();
  step.emit(`int base = n0 + w * ${RW};`);
  if (shuffles) step.emit(`int etaHalf = (((n0 - rowBegin) / ${W * RW}) & 1) * ${W * S};`);
  // The team's rows of X, every load issued before any use. The loads are unconditional, of a row
  // clamped to the last one, so that the compiler issues them all at once: loads under a branch a
  // row took the N=100k pass 35.5 µs on an H200, these 30.5. A workgroup's rows are whole steps,
  // so only the last one's steps run past its rows, and only past N; there a select makes the terms
  // zero (no term of a row past them may reach Xᵀ·R). Issuing the next step's loads before this
  // step's work instead measured no faster on an H200, with shared-memory teams (147 registers a
  // thread against 105) and with subgroup teams (N=100k pass 21.8 µs against 21.5).
  const rows = Array.from({ length: RW }, (_, i) => i);
  for (const i of rows) {
    for (const j of terms) step.emit(`${Ty} x${i}_${j} = ${r.value(X, [`min(base + ${i}, ${N - 1})`, `min(k${j}, ${K - 1})`], step)};`);
  }
  if (N % (W * RW) !== 0) {
    for (const i of rows) step.emit(`if (base + ${i} >= rowEnd) { ${terms.map((j) => `x${i}_${j} = ${zero};`).join(" ")} }`);
  }
  // The team waits for its own lanes only, where it is a subgroup: subgroupBarrier() also makes
  // the lanes' stores to shared memory visible to each other (GL_KHR_shader_subgroup).
  const teamBarrier = shuffles ? "subgroupBarrier();" : "memoryBarrierShared(); barrier();";
  const share = (i: number, c: number) => terms.map((j) => `x${i}_${j} * b${j}_${c}`).join(" + ");
  if (shuffles) {
    // The lane's shares of the step's S η (slot i·C + c, zero past S), summed over the lanes by
    // halving: at the round of lane bit m, a lane keeps the half of its slots that bit selects and
    // adds its partner's (lane ^ m) copy of them. After log2(lanes) rounds lane l holds the whole
    // sums of slots l·M … l·M + M − 1; every sum is the same tree of the lanes' shares, in a fixed
    // order, with no shared memory and no barrier.
    const M = Math.ceil(S / T);
    let slots = Array.from({ length: T * M }, (_, q) => (q < S ? share(Math.floor(q / C), q % C) : zero));
    step.emit(slots.map((v, q) => `${Ty} e0_${q} = ${v};`).join(" "));
    let round = 0;
    for (let m = T / 2; m >= 1; m /= 2, round++) {
      const h = slots.length / 2;
      step.emit(`bool up${round} = (l & ${m}) != 0;`);
      const next = Array.from({ length: h }, (_, j) => `e${round + 1}_${j}`);
      for (let j = 0; j < h; j++) {
        const [lo, hi] = [`e${round}_${j}`, `e${round}_${j + h}`];
        step.emit(`${Ty} ${next[j]} = (up${round} ? ${hi} : ${lo}) + subgroupShuffleXor(up${round} ? ${lo} : ${hi}, ${m});`);
      }
      slots = next;
    }
    for (let j = 0; j < M; j++) {
      const sum = step.child();
      sum.emit(`int q = l * ${M} + ${j};`);
      sum.emit(`ppl_eta[etaHalf + w * ${S} + q] = ${slots[j]};`);
      if (p.writeEta) sum.emit(`if (base + q / ${C} < rowEnd) ${sh.storage.write(eta, `base * ${C} + q`, slots[j]!)}`);
      step.block(M * T === S ? "" : `if (l * ${M} + ${j} < ${S})`, sum);
    }
  } else {
    // The lane's share of each row's η, summed in term order, to shared memory (padded: lane q of
    // slot s at s·33 + q, so that the lanes summing slots read different banks).
    for (const i of rows) {
      for (let c = 0; c < C; c++) step.emit(`ppl_ps[(w * ${S} + ${i * C + c}) * ${T + 1} + l] = ${share(i, c)};`);
    }
    step.emit("memoryBarrierShared(); barrier();");
    // The 32 shares of an η in four interleaved sums, then those in a fixed order: a quarter of the
    // dependent adds of one running sum, the same result on every run.
    const sum = step.child();
    sum.emit(`${Ty} s0 = ${zero}; ${Ty} s1 = ${zero}; ${Ty} s2 = ${zero}; ${Ty} s3 = ${zero};`);
    sum.emit(`for (int q = 0; q < ${T}; q += 4) { int at = (w * ${S} + l) * ${T + 1} + q; s0 += ppl_ps[at]; s1 += ppl_ps[at + 1]; s2 += ppl_ps[at + 2]; s3 += ppl_ps[at + 3]; }`);
    sum.emit(`${Ty} s = (s0 + s1) + (s2 + s3);`);
    sum.emit(`ppl_eta[w * ${S} + l] = s;`);
    if (p.writeEta) sum.emit(`if (base + l / ${C} < rowEnd) ${sh.storage.write(eta, `(base + l / ${C}) * ${C} + l % ${C}`, "s")}`);
    step.block(`if (l < ${S})`, sum);
  }
  step.emit(teamBarrier);
  // The rows' terms: pair i·O + e of a row sum with O outputs (or of a right-hand side R with O
  // columns) is lane (i·O + e) % lanes' m-th, the same pairs at every step, so each lane keeps one
  // sum a pair. Row sums and right-hand sides of the same width share a block, so that a value
  // they share (the residual a logistic regression's intercept sums and Xᵀ·r multiplies) is
  // computed once a pair.
  const widths = [...new Set([...p.reductions.map((n) => n.size), ...cols])];
  // With shuffles a lane keeps its pairs' R in registers (zero past the step's pairs, declared
  // where every lane reaches the shuffles that hand them out) instead of in shared memory.
  if (shuffles) {
    p.contractions.forEach((_, q) => step.emit(Array.from({ length: Math.ceil((RW * cols[q]!) / T) }, (_, m) => `${Ty} rv${q}_${m} = ${zero};`).join(" ")));
  }
  for (const width of widths) {
    const reds = p.reductions.flatMap((n, q) => (n.size === width ? [{ n, q }] : []));
    const cons = p.contractions.flatMap((n, q) => (cols[q] === width ? [{ n, q }] : []));
    for (let m = 0; m < Math.ceil((RW * width) / T); m++) {
      const body = step.child();
      body.emit(`int i = (l + ${T * m}) / ${width}; int e = l + ${T * m} - i * ${width};`);
      for (const { q } of cons) body.emit(`${Ty} v${q} = ${zero};`);
      const inner = body.child();
      for (const { n, q } of reds) {
        const v = n.inputs[0]!;
        const idx = unflatten(n.shape, "e");
        idx.splice(p.rowAxis.get(v)!, 0, "(base + i)");
        inner.emit(`red${q}_${m} += ${r.value(v, idx, inner)};`);
      }
      for (const { n, q } of cons) inner.emit(`v${q} = ${r.value(n.inputs[1]!, ["(base + i)", "e"], inner)};`);
      body.block("if (base + i < rowEnd)", inner);
      for (const { q } of cons) body.emit(shuffles ? `rv${q}_${m} = v${q};` : `ppl_r${q}[w * ${RW * width} + l + ${T * m}] = v${q};`);
      step.block(`if (l + ${T * m} < ${RW * width})`, body);
    }
  }
  // Through shared memory a barrier before the products' reads of R (the next step's barrier
  // after its shares keeps its η from this step's readers); with shuffles, pair i·O + c's R comes
  // from lane (i·O + c) % lanes.
  if (p.contractions.length > 0 && !shuffles) step.emit(teamBarrier);
  p.contractions.forEach((_, q) => {
    const width = cols[q]!;
    for (const i of rows) {
      for (let c = 0; c < width; c++) {
        const pr = i * width + c;
        const v = shuffles ? `subgroupShuffle(rv${q}_${Math.floor(pr / T)}, ${pr % T})` : `ppl_r${q}[w * ${RW * width} + ${pr}]`;
        step.emit(`{ ${Ty} v = ${v}; ${terms.map((j) => `g${q}_${j}_${c} += x${i}_${j} * v;`).join(" ")} }`);
      }
    }
  });
  main.block(`for (int n0 = rowBegin; n0 < rowEnd; n0 += ${W * RW})`, step);

  // The workgroup's partials, the teams' sums added in team order.
  p.contractions.forEach((n, q) => {
    const width = cols[q]!;
    main.emit("memoryBarrierShared(); barrier();");
    for (const j of terms) {
      main.emit(`if (k${j} < ${K}) { ${Array.from({ length: width }, (_, c) => `ppl_ps[(w * ${K} + k${j}) * ${width} + ${c}] = g${q}_${j}_${c};`).join(" ")} }`);
    }
    main.emit("memoryBarrierShared(); barrier();");
    const out = main.child();
    out.emit(`${Ty} s = ${zero}; for (int q = 0; q < ${W}; q++) s += ppl_ps[q * ${K * width} + e];`);
    out.emit(`${sh.bind(scratch.get(n)!, "write")}[gid * ${n.size} + e] = s;`);
    main.block(`for (int e = t; e < ${K * width}; e += ${G})`, out);
  });
  p.reductions.forEach((n, q) => {
    const M = pairsOf(n);
    main.emit("memoryBarrierShared(); barrier();");
    main.emit(Array.from({ length: M }, (_, m) => `ppl_ps[t * ${M} + ${m}] = red${q}_${m};`).join(" "));
    main.emit("memoryBarrierShared(); barrier();");
    const out = main.child();
    // Output e's pairs are i·O + e: lane (pair % lanes), sum pair / lanes of every team.
    out.emit(`${Ty} s = ${zero};`);
    out.emit(`for (int q = 0; q < ${W}; q++) for (int pr = e; pr < ${RW * n.size}; pr += ${n.size}) s += ppl_ps[(q * ${T} + pr % ${T}) * ${M} + pr / ${T}];`);
    out.emit(`${sh.bind(scratch.get(n)!, "write")}[gid * ${n.size} + e] = s;`);
    main.block(`for (int e = t; e < ${n.size}; e += ${G})`, out);
  });

  const shared = [
    `shared ${Ty} ppl_ps[${layout.scratchShared}];`,
    `shared ${Ty} ppl_eta[${(shuffles ? 2 : 1) * W * S}];`,
    ...(shuffles ? [] : cols.map((width, q) => `shared ${Ty} ppl_r${q}[${W * RW * width}];`)),
  ];
  const teams = `${W} team${W === 1 ? "" : "s"}`;
  const pass = f.finish(
    {
      node: eta, localSize: G, workgroups: P, units: P * G, shared, main: main.lines,
      ...(shuffles ? { extensions: ["GL_KHR_shader_subgroup_basic", "GL_KHR_shader_subgroup_shuffle"] } : {}),
      title: `row pass over X [${N},${K}], ${teams} of ${T} ${shuffles ? "lanes (subgroup shuffles)" : "threads"} x ${RW} rows a step, ${chunk} rows per workgroup: η = X·B, ${what}`,
    },
    sh,
  );
  return withMerges(pass);
}

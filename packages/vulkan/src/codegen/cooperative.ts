import { isReduce, sizeOf, type Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { convert } from "./glsl.ts";
import { broadcastIndex, flatten, unflatten } from "./index-math.ts";
import { monoidFor, reduceMonoid } from "./reduce/monoid.ts";
import { renderScan } from "./scan.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import type { LeafReader } from "./sequential.ts";
import { unitWriter, type UnitContext } from "./units.ts";

/** Where a workgroup keeps the values of materialized nodes: a slice of a global scratch buffer. */
export interface CooperativeLayout {
  /** GLSL expression of element `flat` of the scratch slice at `offset` (already offset by the chain). */
  at(offset: number, flat: string): string;
  /** Element type of the scratch buffer (its float dtype). */
  readonly dtype: "f32" | "f64";
  /** Threads per workgroup, a power of two. */
  readonly workgroup: number;
  /** GLSL names of the thread's index in the workgroup and of the shared scratch used by reductions. */
  readonly lid: string;
  readonly shared: readonly string[];
}

/** A graph rendered for one workgroup: read its outputs (after the final barrier) through `r`. */
export interface CooperativeProgram {
  readonly r: ExprRenderer;
  /** Scratch elements the program needs per workgroup. */
  readonly scratchSize: number;
}

const BARRIER = "memoryBarrierBuffer(); memoryBarrierShared(); barrier();";

/**
 * Render a whole graph for ONE workgroup that computes it together (execution shape 2 of
 * DESIGN.md, workgroup per chain): each materialized node's units are spread over the threads
 * (thread i takes units i, i+W, …) and written to the workgroup's slice of a scratch buffer, with a
 * barrier after every node; reductions (and matmuls) with few outputs but many terms are computed
 * by the whole workgroup — strided partial states per thread, then a fixed shared-memory tree —
 * so the result is deterministic. Control flow around calls must be uniform in the workgroup.
 */
export function renderCooperative(outputs: readonly Node[], leaves: LeafReader, scope: Scope, layout: CooperativeLayout): CooperativeProgram {
  const sched = schedule(outputs);
  const offsets = new Map<Node, number>();
  let scratchSize = 0;
  const stored = [...sched.kernels.filter((n) => n.op !== "scan"), ...sched.order.filter((n) => n.op === "tuple_get")];
  for (const n of stored) {
    offsets.set(n, scratchSize);
    scratchSize += Math.max(1, n.size);
  }
  const real = layout.dtype;
  const storage: Storage = {
    read(n, idx, sc) {
      if (n.op === "param" || n.op === "data" || n.op === "arg" || (n.op === "const" && typeof n.attrs.value !== "number")) {
        const e = leaves(n, idx, sc);
        if (e !== undefined) return e;
      }
      const off = offsets.get(n);
      if (off === undefined) return undefined;
      return convert(layout.at(off, flatten(n.shape, idx)), real, n.dtype);
    },
    write(n, flat, value) {
      return `${layout.at(offsets.get(n)!, flat)} = ${convert(value, n.dtype, real)};`;
    },
  };
  const r = new ExprRenderer(storage);
  const tupleUsers = new Map<Node, Node[]>();
  for (const n of sched.order) if (n.op === "tuple_get") tupleUsers.set(n.inputs[0]!, [...(tupleUsers.get(n.inputs[0]!) ?? []), n]);
  const ctx: UnitContext = { r, storage, scan: (s, sc) => renderScan(s, sc, ctx, tupleUsers.get(s) ?? []) };
  const W = layout.workgroup;
  for (const k of sched.kernels) {
    const terms = reductionTerms(k);
    if (terms !== null && k.size < W && terms >= W) {
      emitCooperativeReduction(k, scope, ctx, layout);
    } else if (k.op === "scan") {
      // A recurrence is sequential: one thread runs it, the others wait at the barrier.
      const body = scope.child();
      unitWriter(k).emit("0", body, ctx);
      scope.block(`if (${layout.lid} == 0)`, body);
    } else {
      const w = unitWriter(k);
      const u = r.fresh("u");
      const body = scope.child();
      w.emit(u, body, ctx);
      scope.block(`for (int ${u} = int(${layout.lid}); ${u} < ${w.units}; ${u} += ${W})`, body);
    }
    scope.emit(BARRIER);
  }
  return { r, scratchSize };
}

// Terms summed per output of a reduction or matmul; null for other ops.
function reductionTerms(n: Node): number | null {
  if (isReduce(n.op)) return sizeOf(n.attrs.axes!.map((a) => n.inputs[0]!.shape[a]!));
  if (n.op === "matmul") return n.inputs[0]!.shape[n.inputs[0]!.rank - 1]!;
  return null;
}

function emitCooperativeReduction(node: Node, scope: Scope, ctx: UnitContext, layout: CooperativeLayout): void {
  const { r, storage } = ctx;
  const W = layout.workgroup;
  const isMatmul = node.op === "matmul";
  const monoid = isMatmul ? monoidFor("reduce_sum", node.dtype) : reduceMonoid(node);
  const terms = reductionTerms(node)!;
  const o = r.fresh("o");
  const outer = scope.child();
  const outIdx = unflatten(node.shape, o);
  const state = monoid.identity.map((init) => {
    const name = r.fresh("acc");
    outer.emit(`${monoid.type} ${name} = ${init};`);
    return name;
  });
  const k = r.fresh("k");
  const body = outer.child();
  let v: string;
  if (isMatmul) {
    const [A, B] = node.inputs as [Node, Node];
    const batch = outIdx.slice(0, -2);
    const [i, j] = outIdx.slice(-2) as [string, string];
    const a = r.value(A, [...broadcastIndex(A.shape.slice(0, -2), batch), i, k], body);
    const b = r.value(B, [...broadcastIndex(B.shape.slice(0, -2), batch), k, j], body);
    v = `(${a} * ${b})`;
  } else {
    const x = node.inputs[0]!;
    const axes = node.attrs.axes!;
    const redIdx = unflatten(axes.map((a) => x.shape[a]!), k);
    const idx: string[] = [];
    let ko = 0, oo = 0;
    for (let a = 0; a < x.rank; a++) idx.push(axes.includes(a) ? redIdx[ko++]! : outIdx[oo++]!);
    v = r.value(x, idx, body);
  }
  for (const line of monoid.fold(state, v)) body.emit(line);
  outer.block(`for (int ${k} = int(${layout.lid}); ${k} < ${terms}; ${k} += ${W})`, body);
  // Fixed tree over the workgroup's partial states in shared memory.
  const sh = layout.shared;
  state.forEach((s, c) => outer.emit(`${sh[c]}[${layout.lid}] = ${s};`));
  outer.emit("barrier();");
  const st = r.fresh("st");
  const step = outer.child();
  const other = monoid.identity.map(() => r.fresh("b"));
  const mine = monoid.identity.map(() => r.fresh("a"));
  const merge = step.child();
  mine.forEach((a, c) => merge.emit(`${monoid.type} ${a} = ${sh[c]}[${layout.lid}];`));
  other.forEach((b, c) => merge.emit(`${monoid.type} ${b} = ${sh[c]}[${layout.lid} + ${st}];`));
  for (const line of monoid.merge(mine, other)) merge.emit(line);
  mine.forEach((a, c) => merge.emit(`${sh[c]}[${layout.lid}] = ${a};`));
  step.block(`if (${layout.lid} < ${st})`, merge);
  step.emit("barrier();");
  outer.block(`for (uint ${st} = ${W / 2}u; ${st} > 0u; ${st} >>= 1)`, step);
  const fin = outer.child();
  fin.emit(storage.write(node, o, monoid.finish(monoid.identity.map((_, c) => `${sh[c]}[0]`))));
  outer.block(`if (${layout.lid} == 0)`, fin);
  outer.emit("barrier();");
  scope.block(`for (int ${o} = 0; ${o} < ${node.size}; ${o}++)`, outer);
}

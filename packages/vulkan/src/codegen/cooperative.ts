import { type Node } from "@ppl/tensor";
import { isReduce, sizeOf } from "@ppl/tensor/ir";
import { ExprRenderer } from "./expr.ts";
import { convert } from "./glsl.ts";
import { broadcastIndex, flatten, unflatten } from "./index-math.ts";
import { monoidFor, reduceMonoid } from "./reduce/monoid.ts";
import { mergeStates, type CooperativeLayout } from "./cooperative-merge.ts";
import { emitCooperativeRowPass, findCooperativeRowPasses } from "./cooperative-row-pass.ts";
import { isRowPass, withRowPasses } from "./row-pass.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { renderScan, type LeafReader } from "./sequential.ts";
import { unitWriter, type UnitContext } from "./units.ts";

/** A graph rendered for one workgroup: read its outputs (after the final barrier) through `r`. */
export interface CooperativeProgram {
  readonly r: ExprRenderer;
  /** Scratch elements the program needs per workgroup. */
  readonly scratchSize: number;
  /** How many of the layout's shared arrays the reductions use (logsumexp's pair needs two). */
  readonly sharedUsed: number;
}

/**
 * Render a whole graph for ONE workgroup that computes it together (the workgroup-per-chain
 * execution shape, docs/gpu-sampler.md): each materialized node's units are spread over the threads
 * (thread i takes units i, i+W, …) and written to the workgroup's slice of a scratch buffer, with a
 * barrier after every node; reductions (and matmuls) with few outputs but many terms are computed
 * by the whole workgroup — strided partial states per thread for several outputs in one pass, then
 * a fixed merge (within subgroups and then across them, or a shared-memory tree) — so the result is
 * deterministic. Control flow around calls must be uniform in the workgroup.
 */
export function renderCooperative(outputs: readonly Node[], leaves: LeafReader, scope: Scope, layout: CooperativeLayout): CooperativeProgram {
  const sched = schedule(outputs);
  // A regression's rows in one pass (cooperative-row-pass.ts): η and its row-local values are
  // computed where the pass reads them, never stored.
  const passes = findCooperativeRowPasses(sched.order, outputs, sched.kernels, sched.isStored);
  const unstored = new Set(passes.flatMap((p) => [...p.absorbed, p.eta]));
  const offsets = new Map<Node, number>();
  let scratchSize = 0;
  const stored = [...sched.kernels.filter((n) => n.op !== "scan" && !unstored.has(n)), ...sched.order.filter((n) => n.op === "tuple_get")];
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
  let sharedUsed = 0;
  for (const k of withRowPasses(sched.kernels, passes)) {
    if (isRowPass(k)) {
      const body = scope.child();
      emitCooperativeRowPass(k, body, r, storage, layout);
      scope.block("", body);
      scope.emit(layout.barrier);
      sharedUsed = Math.max(sharedUsed, 1);
      continue;
    }
    const terms = reductionTerms(k);
    if (terms !== null && k.size < W && terms >= W) {
      sharedUsed = Math.max(sharedUsed, emitCooperativeReduction(k, scope, ctx, layout));
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
    scope.emit(layout.barrier);
  }
  return { r, scratchSize, sharedUsed };
}

// Terms summed per output of a reduction or matmul; null for other ops.
function reductionTerms(n: Node): number | null {
  if (isReduce(n.op)) return sizeOf(n.attrs.axes!.map((a) => n.inputs[0]!.shape[a]!));
  if (n.op === "matmul") return n.inputs[0]!.shape[n.inputs[0]!.rank - 1]!;
  return null;
}

// Outputs of a cooperative reduction are computed in chunks: each chunk is one strided pass over
// the terms in which every thread folds the chunk's outputs side by side (reading each term's
// shared inputs once), then one merge for all of them, instead of a pass and a merge per output.
// Returns the number of shared arrays it used.
function emitCooperativeReduction(node: Node, scope: Scope, ctx: UnitContext, layout: CooperativeLayout): number {
  const W = layout.workgroup;
  const chunk = Math.max(1, Math.min(MAX_CHUNK, Math.floor(layout.sharedCapacity / W)));
  for (let o0 = 0; o0 < node.size; o0 += chunk) {
    const body = scope.child();
    emitReductionChunk(node, o0, Math.min(chunk, node.size - o0), body, ctx, layout);
    scope.block("", body);
  }
  return (node.op === "matmul" ? monoidFor("reduce_sum", node.dtype) : reduceMonoid(node)).identity.length;
}

// Outputs folded side by side in one pass: their states live in registers.
const MAX_CHUNK = 16;

function emitReductionChunk(node: Node, o0: number, m: number, scope: Scope, ctx: UnitContext, layout: CooperativeLayout): void {
  const { r, storage } = ctx;
  const W = layout.workgroup;
  const lid = layout.lid;
  const isMatmul = node.op === "matmul";
  const monoid = isMatmul ? monoidFor("reduce_sum", node.dtype) : reduceMonoid(node);
  const terms = reductionTerms(node)!;
  const states = Array.from({ length: m }, () =>
    monoid.identity.map((init) => {
      const name = r.fresh("acc");
      scope.emit(`${monoid.type} ${name} = ${init};`);
      return name;
    }),
  );
  const k = r.fresh("k");
  const body = scope.child();
  states.forEach((state, j) => {
    const outIdx = unflatten(node.shape, String(o0 + j));
    let v: string;
    if (isMatmul) {
      const [A, B] = node.inputs as [Node, Node];
      const batch = outIdx.slice(0, -2);
      const [i, jj] = outIdx.slice(-2) as [string, string];
      const a = r.value(A, [...broadcastIndex(A.shape.slice(0, -2), batch), i, k], body);
      const b = r.value(B, [...broadcastIndex(B.shape.slice(0, -2), batch), k, jj], body);
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
  });
  scope.block(`for (int ${k} = int(${lid}); ${k} < ${terms}; ${k} += ${W})`, body);
  mergeStates(states, monoid, scope, r, layout, (fin, finalState) => fin.emit(storage.write(node, `(${o0} + int(${lid}))`, monoid.finish(finalState))));
}

import { type Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { glslType, literal } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import { monoidFor } from "./reduce/monoid.ts";
import { findRowPassesWithin, WIDE_TERMS, type RowPass } from "./row-pass.ts";
import { schedule } from "./schedule.ts";
import type { Scope } from "./scope.ts";
import type { Storage } from "./storage.ts";
import { mergeStates, type CooperativeLayout } from "./cooperative-merge.ts";

// A row pass for one chain's workgroup (execution shape 2: codegen/cooperative.ts). A regression's
// gradient, rendered node by node, is about ten passes over the rows, each behind a barrier: η =
// X·β, the terms of each row (exp, log1p, the residual), the log likelihood's sum, the residuals'
// sum, Xᵀ·r. Every value between η and those sums is a function of one row, so the workgroup's
// threads can take the rows in turn (thread t rows t, t + W, …) and, for each, read the row of X
// into registers, form η, the row's terms and their contribution to every sum and to Xᵀ·r, with no
// barrier and nothing stored between them; one merge at the end adds the threads' sums, in a fixed
// order (cooperative-merge.ts's mergeStates), so the result is the same on every run.

/** The row passes of one chain's graph that a workgroup renders (one column of η, X's row in registers). */
export function findCooperativeRowPasses(order: readonly Node[], outputs: readonly Node[], kernels: readonly Node[], isStored: (n: Node) => boolean): RowPass[] {
  return findRowPassesWithin(order, outputs, kernels, isStored, { rowPassTeams: 1, groupSize: WIDE_TERMS, skinnyMatmulColumns: 1 }, (p) => {
    const K = p.X.shape[1]!;
    // η read outside the pass (by a gather, a cumulative sum) stays the node-by-node plan's.
    return !p.wide && !p.writeEta && p.eta.shape[1] === 1 && K <= WIDE_TERMS && sumsOf(p) <= MOST_SUMS;
  });
}

/** The row passes renderCooperative renders for a graph's outputs (as it schedules them). */
export function cooperativeRowPasses(outputs: readonly Node[]): RowPass[] {
  const sched = schedule(outputs);
  return findCooperativeRowPasses(sched.order, outputs, sched.kernels, sched.isStored);
}

/** Most sums (row-sum outputs and Xᵀ·r entries) a thread of a cooperative row pass keeps in registers. */
const MOST_SUMS = 64;

function sumsOf(p: RowPass): number {
  return p.reductions.reduce((s, n) => s + n.size, 0) + p.contractions.reduce((s, n) => s + n.size, 0);
}

/**
 * Emit a row pass for the workgroup: each thread folds its rows into registers, then the sums are
 * merged and written to `storage`, which must hold neither η nor the absorbed nodes: the pass
 * computes them where it reads them.
 */
export function emitCooperativeRowPass(p: RowPass, scope: Scope, parent: ExprRenderer, storage: Storage, layout: CooperativeLayout): void {
  const { X, eta } = p;
  const [N, K] = X.shape as [number, number];
  const B = eta.inputs[1]!;
  const W = layout.workgroup;
  const Ty = glslType(eta.dtype);
  const zero = literal(0, eta.dtype);
  const r = new ExprRenderer({ read: (n, idx, sc) => (n === eta ? "e" : storage.read(n, idx, sc)), write: storage.write }, parent);
  const terms = Array.from({ length: K }, (_, k) => k);
  // The sums: each reduction's outputs, then each contraction's (K × columns, row-major).
  const sums = [
    ...p.reductions.flatMap((n) => Array.from({ length: n.size }, (_, e) => ({ n, e, name: r.fresh("rs") }))),
    ...p.contractions.flatMap((n) => Array.from({ length: n.size }, (_, e) => ({ n, e, name: r.fresh("rs") }))),
  ];
  scope.emit(`// row pass over X [${N},${K}]: η = X·β, the rows' terms, ${p.reductions.length} row sum(s) and ${p.contractions.length} product(s) with Xᵀ`);
  for (const s of sums) scope.emit(`${Ty} ${s.name} = ${zero};`);
  // β's terms, the same at every row.
  const b = terms.map((k) => r.value(B, [`${k}`, "0"], scope));
  const row = scope.loop(["n", "e", ...terms.map((k) => `x${k}`)]);
  for (const k of terms) row.emit(`${Ty} x${k} = ${r.value(X, ["n", `${k}`], row)};`);
  row.emit(`${Ty} e = ${terms.map((k) => `x${k} * ${b[k]}`).join(" + ")};`);
  for (const { n, e, name } of sums) {
    if (p.reductions.includes(n)) {
      const v = n.inputs[0]!;
      const idx = unflatten(n.shape, `${e}`);
      idx.splice(p.rowAxis.get(v)!, 0, "n");
      row.emit(`${name} += ${r.value(v, idx, row)};`);
    } else {
      const columns = n.shape[1]!;
      const [k, c] = [Math.floor(e / columns), e % columns];
      row.emit(`${name} += x${k} * ${r.value(n.inputs[1]!, ["n", `${c}`], row)};`);
    }
  }
  scope.block(`for (int n = int(${layout.lid}); n < ${N}; n += ${W})`, row);
  // The merges, as many sums side by side as the shared arrays hold.
  const monoid = monoidFor("reduce_sum", eta.dtype);
  const chunk = Math.max(1, Math.floor(layout.sharedCapacity / W));
  for (let at = 0; at < sums.length; at += chunk) {
    const part = sums.slice(at, at + chunk);
    mergeStates(part.map((s) => [s.name]), monoid, scope, r, layout, (fin, [v]) => {
      part.forEach((s, j) => fin.emit(`if (${layout.lid} == ${j}) ${storage.write(s.n, `${s.e}`, v!)}`));
    });
  }
}

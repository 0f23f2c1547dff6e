import type { ExprRenderer } from "./expr.ts";
import type { ReduceMonoid } from "./reduce/monoid.ts";
import type { Scope } from "./scope.ts";

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
  /**
   * Elements of each shared array in `shared`: a multiple of `workgroup`. A reduction with few
   * outputs computes up to capacity / workgroup of them in one pass over its terms.
   */
  readonly sharedCapacity: number;
  /** Whether the device has subgroup arithmetic: partial states then merge within subgroups first. */
  readonly subgroups: boolean;
  /** The statement between two nodes: a barrier that also orders the scratch's memory. */
  readonly barrier: string;
}

/**
 * Merge the workgroup's partial states of m ≤ sharedCapacity / workgroup outputs side by side
 * (state j of every thread is output j's), in a fixed order: within subgroups and then across
 * them in subgroup order, or by a shared-memory tree. Thread j < m then holds output j's merged
 * state, and `write` emits its use in the block only those threads run. Ends with a barrier, after
 * which the shared slots may be reused.
 */
export function mergeStates(
  states: readonly (readonly string[])[], monoid: ReduceMonoid, scope: Scope, r: ExprRenderer, layout: CooperativeLayout,
  write: (fin: Scope, finalState: readonly string[]) => void,
): void {
  const W = layout.workgroup;
  const lid = layout.lid;
  const m = states.length;
  // Output j's partial states occupy slots [j·W, (j+1)·W) of each shared array.
  const sh = layout.shared;
  const slot = (j: string, i: string) => `${j} * ${W} + ${i}`;
  const finalState = monoid.identity.map(() => r.fresh("f"));
  const fin = scope.child();
  if (layout.subgroups) {
    // Merge within each subgroup, then thread j < m merges output j's subgroup results in order.
    states.forEach((state) => monoid.subgroup(state).forEach((l) => scope.emit(l)));
    const elect = scope.child();
    states.forEach((state, j) => state.forEach((s, c) => elect.emit(`${sh[c]}[${slot(String(j), "gl_SubgroupID")}] = ${s};`)));
    scope.block("if (subgroupElect())", elect);
    scope.emit("barrier();");
    finalState.forEach((f, c) => fin.emit(`${monoid.type} ${f} = ${sh[c]}[${slot(lid, "0")}];`));
    const i = r.fresh("i");
    const step = fin.child();
    const other = monoid.identity.map(() => r.fresh("b"));
    other.forEach((b, c) => step.emit(`${monoid.type} ${b} = ${sh[c]}[${slot(lid, i)}];`));
    for (const line of monoid.merge(finalState, other)) step.emit(line);
    fin.block(`for (uint ${i} = 1u; ${i} < gl_NumSubgroups; ${i}++)`, step);
  } else {
    // A fixed tree over the workgroup's partial states in shared memory, every output at once.
    states.forEach((state, j) => state.forEach((s, c) => scope.emit(`${sh[c]}[${slot(String(j), lid)}] = ${s};`)));
    scope.emit("barrier();");
    const st = r.fresh("st");
    const step = scope.child();
    const merge = step.child();
    for (let j = 0; j < m; j++) {
      const mine = monoid.identity.map(() => r.fresh("a"));
      const other = monoid.identity.map(() => r.fresh("b"));
      mine.forEach((a, c) => merge.emit(`${monoid.type} ${a} = ${sh[c]}[${slot(String(j), lid)}];`));
      other.forEach((b, c) => merge.emit(`${monoid.type} ${b} = ${sh[c]}[${slot(String(j), `${lid} + ${st}`)}];`));
      for (const line of monoid.merge(mine, other)) merge.emit(line);
      mine.forEach((a, c) => merge.emit(`${sh[c]}[${slot(String(j), lid)}] = ${a};`));
    }
    step.block(`if (${lid} < ${st})`, merge);
    step.emit("barrier();");
    scope.block(`for (uint ${st} = ${W / 2}u; ${st} > 0u; ${st} >>= 1)`, step);
    finalState.forEach((f, c) => fin.emit(`${monoid.type} ${f} = ${sh[c]}[${slot(lid, "0")}];`));
  }
  write(fin, finalState);
  scope.block(`if (${lid} < ${m})`, fin);
  // The shared slots are reused by the next chunk or reduction.
  scope.emit("barrier();");
}

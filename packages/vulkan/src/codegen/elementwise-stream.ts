import type { Node } from "@ppl/tensor";
import { ExprRenderer } from "./expr.ts";
import { glslType } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { Scope } from "./scope.ts";
import type { KernelPlan } from "./shader.ts";
import type { Storage } from "./storage.ts";
import { isElementMap } from "./units.ts";

/**
 * Whether a node's kernel may compute several units per thread with every load hoisted ahead of
 * the arithmetic: each unit is one element computed from its inputs (no loop), and every load
 * address follows from the element's position alone. A gather among the fused producers breaks
 * the latter (its address is a loaded value), so such kernels keep one unit per thread.
 */
export function isStreamable(node: Node, isStored: (n: Node) => boolean): boolean {
  if (!isElementMap(node)) return false;
  const seen = new Set<Node>();
  const fusedWithoutGather = (n: Node): boolean => {
    if (seen.has(n)) return true;
    seen.add(n);
    return n.op !== "gather" && n.inputs.every((x) => isStored(x) || fusedWithoutGather(x));
  };
  return fusedWithoutGather(node);
}

/**
 * An elementwise kernel of `perThread` units per thread (only for isStreamable nodes). Thread t
 * of workgroup g takes units g·L·K + t + j·L for j < K, so for every j consecutive threads touch
 * consecutive elements. The thread first loads every buffer value all its units read, then
 * computes and stores the units one after the other: the loads of all units are in flight
 * together, which is what lets a GPU reach its memory bandwidth (with one unit per thread each
 * thread waits on its loads before any later ones are issued; the compiler cannot hoist a later
 * unit's loads above an earlier unit's store by itself).
 */
export function streamKernel(node: Node, perThread: number, f: KernelFactory): KernelPlan {
  const sh = f.shader();
  const L = f.limits.streamLocalSize;
  const K = perThread;
  const units = node.size;
  const loads = new Scope(undefined, "");
  // Every buffer read becomes a variable of the load block; the unit's code refers to it by name.
  const prefetch: Storage = {
    read(n, idx) {
      // Into the load block: a read that needs statements (a sum of partials) runs there too.
      const e = sh.storage.read(n, idx, loads);
      if (e === undefined) return undefined;
      const name = r.fresh("ld");
      loads.emit(`${glslType(n.dtype)} ${name} = ${e};`);
      return name;
    },
    write: (n, flat, value) => sh.storage.write(n, flat, value),
  };
  const r = new ExprRenderer(prefetch);
  const head = [`int u0 = gid * ${L * K} + int(gl_LocalInvocationIndex);`, `if (u0 >= ${units}) return;`];
  const compute: string[] = [];
  for (let j = 0; j < K; j++) {
    const u = `u${j}`;
    // Past the end, a unit loads and computes the last element again (in bounds) and skips its store.
    if (j > 0) head.push(`int ${u} = min(u0 + ${j * L}, ${units - 1});`);
    const unit = new Scope(undefined, "");
    const store = sh.storage.write(node, u, r.compute(node, unflatten(node.shape, u), unit));
    unit.emit(j === 0 ? store : `if (u0 + ${j * L} < ${units}) ${store}`);
    compute.push(...unit.lines);
  }
  return f.finish(
    { node, localSize: L, workgroups: Math.ceil(units / (L * K)), units, main: [...head, ...loads.lines, ...compute], title: `${K} units per thread, loads first` },
    sh,
  );
}

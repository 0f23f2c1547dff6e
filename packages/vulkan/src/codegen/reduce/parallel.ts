import { type Node } from "@ppl/tensor";
import { sizeOf } from "@ppl/tensor/ir";
import { unflatten } from "../index-math.ts";
import type { KernelFactory } from "../kernel-factory.ts";
import { reduceMonoid, type ReduceMonoid } from "./monoid.ts";
import { Scope } from "../scope.ts";
import type { KernelPlan, ScratchBuffer } from "../shader.ts";
import { workgroupReduce } from "./workgroup.ts";
import { stridedLoop } from "../strided-loop.ts";

/**
 * A reduction split over `partitions` workgroups per output, in one dispatch. Workgroup (o, p)
 * folds the p-th contiguous slice of output o's elements — each thread a fixed stride of it,
 * computing the fused producer inline — and merges its threads' states in a fixed tree. With one
 * partition it writes the result. Otherwise it stores its state as a partial, and the last of
 * output o's workgroups to finish (counted atomically) merges the P partials and writes the
 * result: in partition order, or with subgroup arithmetic by its first subgroup alone (which also
 * stores and counts: no workgroup barrier after the count), each lane a fixed stride of the
 * partials, then the subgroup's merge. A second dispatch for the merge would cost more than the
 * merge itself on a GPU, where small gradients are bound by their count of dispatches. Where the
 * sum's readers add its partials themselves (f.sliced, inline-slices.ts), each workgroup only
 * stores its partial: the count and the merge, a chain of two round trips to memory, leave the
 * kernel. Fixed slices and a fixed merge order, whichever workgroup is last: bit-identical reruns.
 */
export function parallelReduceKernels(node: Node, partitions: number, f: KernelFactory): KernelPlan[] {
  return splitReduceKernels([node], partitions, f);
}

/**
 * Reductions of inputs of one shape over the same axes (and one dtype), split alike, as one
 * kernel (reduce/siblings.ts): each thread folds an element into every reduction's state, the
 * terms computed once in one scope, and each reduction's state is merged as it would be alone,
 * so the results are the same bits as their kernels apart. One node: parallelReduceKernels.
 */
export function splitReduceKernels(nodes: readonly Node[], partitions: number, f: KernelFactory): KernelPlan[] {
  const node = nodes[0]!;
  const x = node.inputs[0]!;
  const axes = node.attrs.axes!;
  const redShape = axes.map((a) => x.shape[a]!);
  const count = sizeOf(redShape);
  const outputs = node.size;
  const P = partitions;
  const G = f.limits.groupSize;
  const K = nodes.length;
  const monoids = nodes.map(reduceMonoid);
  // The reductions' states side by side: reduction i holds components from[i] .. from[i] + its own.
  const from: number[] = [];
  let width = 0;
  for (const m of monoids) {
    from.push(width);
    width += m.identity.length;
  }
  const own = <T>(all: readonly T[], i: number) => all.slice(from[i]!, from[i]! + monoids[i]!.identity.length);
  const monoid: ReduceMonoid = {
    type: monoids[0]!.type,
    dtype: node.dtype,
    identity: monoids.flatMap((m) => m.identity),
    fold: () => {
      throw new Error("split reduction: each reduction folds its own element");
    },
    merge: (a, b) => monoids.flatMap((m, i) => m.merge(own(a, i), own(b, i))),
    subgroup: (s) => monoids.flatMap((m, i) => m.subgroup(own(s, i))),
    finish: () => {
      throw new Error("split reduction: each reduction finishes its own state");
    },
  };
  const what = K === 1 ? `${node.op} states` : `states of ${K} reductions`;
  const scratch: ScratchBuffer = { kind: "scratch", dtype: node.dtype, size: width * outputs * P, label: `${P} partial ${what} per output`, shared: true };
  const counter: ScratchBuffer = { kind: "scratch", dtype: "i32", size: outputs, label: K === 1 ? `workgroups of each output's ${node.op} done` : `workgroups of each output of ${K} reductions done`, shared: true };
  // Component c of the state of (output o, partition p).
  const slot = (c: number, op: string) => `${c * outputs * P} + ${op}`;

  const sh = f.shader();
  const main = new Scope(undefined, "");
  const chunk = Math.ceil(count / P);
  main.emit(`int o = gid / ${P};`);
  main.emit(`int p = gid - o * ${P};`);
  main.emit(`int kEnd = min(${count}, (p + 1) * ${chunk});`);
  const s = declareState(monoid, main);
  const outIdx = unflatten(node.shape, "o");
  // One scope for every reduction's element: what their terms share (a residual) is computed once.
  const element = (body: Scope, k: string) => {
    const redIdx = unflatten(redShape, k);
    const idx: string[] = [];
    let ko = 0, oo = 0;
    for (let a = 0; a < x.rank; a++) idx.push(axes.includes(a) ? redIdx[ko++]! : outIdx[oo++]!);
    return nodes.flatMap((n, i) => monoids[i]!.fold(own(s, i), sh.r.value(n.inputs[0]!, idx, body)));
  };
  const range = { name: "k", start: `p * ${chunk} + int(gl_LocalInvocationIndex)`, end: "kEnd", stride: G };
  stridedLoop(main, range, f.limits.loopIterationsInFlight, element);
  const wg1 = workgroupReduce(monoid, s, G, f.limits.subgroupArithmetic);
  for (const l of wg1.lines) main.emit(l);
  const extensions = [...wg1.extensions];
  const shared = [...wg1.shared];
  const writeAll = () => nodes.map((n, i) => sh.storage.write(n, "o", monoids[i]!.finish(own(s, i)))).join(" ");
  // Sums whose readers add the partials themselves (inline-slices.ts): each workgroup stores its
  // partial at p·size + o, and there is no count and no merge.
  const sliced = nodes.map((n) => f.sliced?.get(n));
  const leaveSlices = P > 1 && sliced.every((v) => v !== undefined && v.slices === P);
  if (P > 1 && !leaveSlices && sliced.some((v) => v !== undefined)) throw new Error("split reduction: either every sum leaves its partials or none");
  if (P === 1) main.emit(`if (${wg1.leader}) { ${writeAll()} }`);
  else if (leaveSlices) {
    const stores = nodes.map((n, i) => `${sh.bind(sliced[i]!.scratch, "write")}[p * ${outputs} + o] = ${monoids[i]!.finish(own(s, i))};`);
    main.emit(`if (${wg1.leader}) { ${stores.join(" ")} }`);
  } else {
    const partials = sh.bind(scratch, "readwrite");
    const done = sh.bind(counter, "readwrite");
    // The partial is made visible to every workgroup before the count that announces it.
    const store = `${s.map((c, i) => `${partials}[${slot(i, "gid")}] = ${c};`).join(" ")} memoryBarrierBuffer();`;
    // The last workgroup of output o: every partial is written; each of its merging threads folds
    // a fixed stride of them (from `start`, `lanes` apart) into a state started at the identity,
    // up to `copies` of them loaded at once (strided-loop.ts: the same order, so the same bits).
    const mergeStride = (start: string, lanes: number | string, copies: number) => {
      main.emit("memoryBarrierBuffer();");
      main.emit(s.map((c, i) => `${c} = ${monoid.identity[i]};`).join(" "));
      const loaded = (i: string) => s.map((_, c) => `${i}_p${c}`);
      stridedLoop(main, { name: "i", start, end: `${P}`, stride: lanes }, copies, (body, i) => {
        loaded(i).forEach((v, c) => body.emit(`${monoid.type} ${v} = ${partials}[${slot(c, `o * ${P} + ${i}`)}];`));
        return monoid.merge(s, loaded(i));
      }, loaded);
    };
    if (f.limits.subgroupArithmetic) {
      // Only the first subgroup, which holds the workgroup's state after wg1, goes on: its elected
      // lane stores the partial and counts it, and in the last workgroup that subgroup alone
      // merges the partials (then the subgroup's fixed merge): no workgroup barrier and no second
      // tree on the chain that ends the kernel.
      main.emit("if (gl_SubgroupID != 0) return;");
      main.emit("bool ppl_last = false;");
      main.emit(`if (subgroupElect()) { ${store} ppl_last = atomicAdd(${done}[o], 1) == ${P - 1}; }`);
      main.emit("if (!subgroupAny(ppl_last)) return;");
      // A workgroup smaller than a subgroup fills only G of its lanes: those stride the partials.
      // A lane's partials are loaded in one trip where the device's subgroup size (rowPassSubgroup;
      // 32 where unknown) and loopIterationsInFlight allow: hier's 49 a sum are two a lane.
      main.emit(`int ppl_merge_lanes = int(min(gl_SubgroupSize, ${G}u));`);
      const subgroupLanes = Math.min(f.limits.rowPassSubgroup || 32, G);
      mergeStride("int(gl_SubgroupInvocationID)", "ppl_merge_lanes", Math.min(f.limits.loopIterationsInFlight, Math.ceil(P / subgroupLanes)));
      for (const l of monoid.subgroup(s)) main.emit(l);
      main.emit(`if (subgroupElect()) { ${writeAll()} ${done}[o] = 0; }`);
    } else {
      // The workgroup learns from its leader whether it is the last, then merges in partition order.
      main.emit(`if (${wg1.leader}) { ${store} ppl_done = atomicAdd(${done}[o], 1); }`);
      main.emit("memoryBarrierShared(); barrier();");
      main.emit(`if (ppl_done != ${P - 1}) return;`);
      mergeStride("int(gl_LocalInvocationIndex)", G, Math.min(f.limits.loopIterationsInFlight, Math.ceil(P / G)));
      const wg2 = workgroupReduce(monoid, s, G, false);
      for (const l of wg2.lines) main.emit(l);
      main.emit(`if (${wg2.leader}) { ${writeAll()} ${done}[o] = 0; }`);
      shared.push("shared int ppl_done;");
    }
  }
  const split = P === 1 ? "1 workgroup per output" : leaveSlices ? `${P} workgroups per output, their partials added by the readers` : `${P} workgroups per output, the last merges their partials`;
  const plan = f.finish(
    {
      node: nodes[K - 1]!, localSize: G, workgroups: outputs * P, units: outputs * P * G, extensions, shared, main: main.lines,
      title: K === 1 ? `parallel reduction (${split})` : `${K} reductions over the same elements in one pass (${split}): ${nodes.map((n) => `node ${n.hash}`).join(", ")}`,
    },
    sh,
  );
  return [K === 1 ? plan : { ...plan, nodes }];
}

/** Declare the state variables of a monoid at its identity; returns their names. */
export function declareState(monoid: ReduceMonoid, scope: Scope): string[] {
  const s = monoid.identity.map((_, c) => `red_s${c}`);
  s.forEach((name, c) => scope.emit(`${monoid.type} ${name} = ${monoid.identity[c]};`));
  return s;
}

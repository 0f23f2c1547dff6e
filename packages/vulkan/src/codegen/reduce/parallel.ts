import { sizeOf, type Node } from "@ppl/tensor";
import { unflatten } from "../index-math.ts";
import type { KernelFactory } from "../kernel-factory.ts";
import { reduceMonoid, type ReduceMonoid } from "./monoid.ts";
import { Scope } from "../scope.ts";
import type { KernelPlan, ScratchBuffer } from "../shader.ts";
import { workgroupReduce } from "./workgroup.ts";

/**
 * A reduction split over `partitions` workgroups per output. Pass 1: workgroup (o, p) folds the
 * p-th contiguous slice of output o's elements — each thread a fixed stride of it, computing the
 * fused producer inline — and merges its threads' states in a fixed tree; with one partition it
 * writes the result, otherwise the state goes to a scratch buffer. Pass 2: one workgroup per output
 * merges that output's partial states. Fixed slices and fixed merge order: bit-identical reruns.
 */
export function parallelReduceKernels(node: Node, partitions: number, f: KernelFactory): KernelPlan[] {
  const x = node.inputs[0]!;
  const axes = node.attrs.axes!;
  const redShape = axes.map((a) => x.shape[a]!);
  const count = sizeOf(redShape);
  const outputs = node.size;
  const P = partitions;
  const G = f.limits.groupSize;
  const monoid = reduceMonoid(node);
  const scratch: ScratchBuffer = { kind: "scratch", dtype: node.dtype, size: monoid.identity.length * outputs * P, label: `${P} partial ${node.op} states per output` };
  // Component c of the state of (output o, partition p).
  const slot = (c: number, op: string) => `${c * outputs * P} + ${op}`;

  const sh1 = f.shader();
  const main = new Scope(undefined, "");
  const chunk = Math.ceil(count / P);
  main.emit(`int o = gid / ${P};`);
  main.emit(`int p = gid - o * ${P};`);
  main.emit(`int kEnd = min(${count}, (p + 1) * ${chunk});`);
  const s = declareState(monoid, main);
  const body = main.child();
  const outIdx = unflatten(node.shape, "o");
  const redIdx = unflatten(redShape, "k");
  const idx: string[] = [];
  let ko = 0, oo = 0;
  for (let a = 0; a < x.rank; a++) idx.push(axes.includes(a) ? redIdx[ko++]! : outIdx[oo++]!);
  const v = sh1.r.value(x, idx, body);
  for (const l of monoid.fold(s, v)) body.emit(l);
  main.block(`for (int k = p * ${chunk} + int(gl_LocalInvocationIndex); k < kEnd; k += ${G})`, body);
  const wg1 = workgroupReduce(monoid, s, G, f.limits.subgroupArithmetic);
  for (const l of wg1.lines) main.emit(l);
  const result = P === 1
    ? sh1.storage.write(node, "o", monoid.finish(s))
    : s.map((c, i) => `${sh1.bind(scratch, "write")}[${slot(i, "gid")}] = ${c};`).join(" ");
  main.emit(`if (${wg1.leader}) { ${result} }`);
  const pass1 = f.finish(
    { node, localSize: G, workgroups: outputs * P, units: outputs * P * G, extensions: wg1.extensions, shared: wg1.shared, main: main.lines, title: `parallel reduction, pass 1 of ${P === 1 ? 1 : 2} (${P} workgroups per output)` },
    sh1,
  );
  if (P === 1) return [pass1];

  const sh2 = f.shader();
  const main2 = new Scope(undefined, "");
  const s2 = declareState(monoid, main2);
  const loop = main2.child();
  const partial = s2.map((_, c) => `${sh2.bind(scratch, "read")}[${slot(c, `gid * ${P} + i`)}]`);
  for (const l of monoid.merge(s2, partial)) loop.emit(l);
  main2.block(`for (int i = int(gl_LocalInvocationIndex); i < ${P}; i += ${G})`, loop);
  const wg2 = workgroupReduce(monoid, s2, G, f.limits.subgroupArithmetic);
  for (const l of wg2.lines) main2.emit(l);
  main2.emit(`if (${wg2.leader}) { ${sh2.storage.write(node, "gid", monoid.finish(s2))} }`);
  const pass2 = f.finish(
    { node, localSize: G, workgroups: outputs, units: outputs * G, extensions: wg2.extensions, shared: wg2.shared, main: main2.lines, title: "parallel reduction, pass 2 of 2 (merge partials)" },
    sh2,
  );
  return [pass1, pass2];
}

/** Declare the state variables of a monoid at its identity; returns their names. */
export function declareState(monoid: ReduceMonoid, scope: Scope): string[] {
  const s = monoid.identity.map((_, c) => `red_s${c}`);
  s.forEach((name, c) => scope.emit(`${monoid.type} ${name} = ${monoid.identity[c]};`));
  return s;
}

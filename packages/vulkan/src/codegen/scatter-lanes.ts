import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import { unflatten } from "./index-math.ts";
import { laneTree, laneTreeShared, outputLanes } from "./output-lanes.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { Scope } from "./scope.ts";
import { stridedLoop } from "./strided-loop.ts";
import type { KernelPlan, ShaderBuilder } from "./shader.ts";

/** GLSL int expressions of a segment layout's offsets[j] and order[s], given the kernel's shader. */
export type SegmentLayoutReader = (shader: ShaderBuilder) => { offset(j: string): string; entry(s: string): string };

/**
 * Threads that share one output's segment: a power of two up to 32 leaving each at least
 * `perLane` entries on average (hier with 6: 100k entries over 2,000 groups, 8 threads of about 6
 * entries), or 1.
 */
export function segmentLanes(entries: number, targets: number, groupSize: number, perLane = 6): number {
  return targets > 0 ? outputLanes(entries / targets, perLane, groupSize) : 1;
}

/**
 * scatter_add over a segment layout with S threads an output element: thread j of an element sums
 * the entries j, j + S, … of its segment in order, then a fixed tree in shared memory adds the S
 * sums. One thread per element walks its whole segment as a chain of dependent index and value
 * loads (hier: about 50 of them, the longest part of its gradient); S threads walk S times fewer.
 * The order is fixed, so the result is the same on every run (though not the serial order's).
 */
export function laneScatterKernel(node: Node, lanes: number, layout: SegmentLayoutReader, f: KernelFactory): KernelPlan {
  const [upd, ind] = node.inputs as [Node, Node];
  const axis = node.attrs.axis!;
  const sh = f.shader();
  const { offset, entry } = layout(sh);
  const T = glslType(node.dtype);
  const zero = literal(0, node.dtype);
  const S = lanes;
  const O = Math.max(1, Math.floor(f.limits.groupSize / S));
  const threads = O * S;
  const main = new Scope(undefined, "");
  // Thread t = o·S + j: the lanes of an element are neighbours, so their index loads are one run.
  main.emit(`int t = int(gl_LocalInvocationIndex); int o = t / ${S}; int j = t - o * ${S}; int u = gid * ${O} + o;`);
  main.emit(`${T} acc = ${zero};`);
  const inRange = main.child();
  const idx = unflatten(node.shape, "u");
  const target = idx[axis]!;
  inRange.emit(`int lo = ${offset(target)}; int hi = ${offset(`(${target} + 1)`)};`);
  // Every entry of the segment has the target for its index (entries out of range belong to no
  // segment): what the updates gather by that index is read once, before the loop.
  // Entry p of iteration s: "p" for the plain loop's "s", "p_3" for its fourth copy's "s_3".
  const entryOf = (s: string) => `p${s.slice(1)}`;
  const element = (body: Scope, s: string) => {
    const p = entryOf(s);
    sh.r.know(ind, unflatten(ind.shape, p), inRange, target);
    body.emit(`int ${p} = ${entry(s)};`);
    return [`acc += ${sh.r.value(upd, [...idx.slice(0, axis), ...unflatten(ind.shape, p), ...idx.slice(axis + 1)], body)};`];
  };
  stridedLoop(inRange, { name: "s", start: "lo + j", end: "hi", stride: S }, f.limits.loopIterationsInFlight, element, (s) => [entryOf(s)]);
  main.block(`if (u < ${node.size})`, inRange);
  for (const l of laneTree(S, 1, `u < ${node.size}`, (sum) => sh.storage.write(node, "u", sum))) main.emit(l);
  return f.finish(
    {
      node, localSize: threads, workgroups: Math.ceil(node.size / O), units: node.size * S, main: main.lines,
      shared: [laneTreeShared(node.dtype, threads)], title: `segment sums, ${S} threads an output`,
    },
    sh,
  );
}

import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import { laneTree, laneTreeShared, outputLanes } from "./output-lanes.ts";
import type { KernelPlan, ScratchBuffer, ShaderBuilder } from "./shader.ts";

/**
 * The scratch buffer of a product split into `slices` slices of its inner dimension: slice p's
 * partial of output element e at p·size + e, so the merging threads read consecutive elements.
 */
export function sliceScratch(node: Node, slices: number, mergedInDispatch: boolean): ScratchBuffer {
  return { kind: "scratch", dtype: node.dtype, size: slices * node.size, label: `${slices} partial products per output`, shared: mergedInDispatch };
}

/**
 * Whether a split product's last slice merges the tile in the same dispatch, given the partials
 * each merging thread would read. Its reads are coherent (they bypass the caches the writers'
 * workgroups did not share), and a thread's coherent loads do not overlap: on an H200, Xᵀ·R over
 * 100k rows in 511 slices, merged by one workgroup whose threads read 4 × 511 partials each, took
 * 449 µs a gradient against 89 µs with a merge pass. A few reads per thread cost less than a dispatch.
 */
export function mergesInLastSlice(slices: number, readsPerThread: number): boolean {
  return slices > 1 && readsPerThread <= 16;
}

/** A count per output tile of its k-slices done; the last slice's workgroup merges the tile. */
export function sliceCounter(node: Node, tiles: number): ScratchBuffer {
  return { kind: "scratch", dtype: "i32", size: tiles, label: `k-slices of each ${node.op} tile done`, shared: true };
}

/**
 * Statements run by every thread of a k-slice's workgroup once it has stored its partials: count
 * the slice done for tile `tileId`; all but the tile's last workgroup return. The last one then
 * sums the tile's partials (`slicesSum`) in the same dispatch and resets the count
 * (`resetSliceCount`): a separate merge pass costs a dispatch, which dwarfs the merge itself.
 */
export function lastSliceOnly(sh: ShaderBuilder, counter: ScratchBuffer, slices: number): string[] {
  return [
    // Every thread's partials are written and visible device-wide before the count announces them.
    "memoryBarrierBuffer(); memoryBarrierShared(); barrier();",
    `if (gl_LocalInvocationIndex == 0) ppl_done = atomicAdd(${sh.bind(counter, "readwrite")}[tileId], 1);`,
    "memoryBarrierShared(); barrier();",
    `if (ppl_done != ${slices - 1}) return;`,
    "memoryBarrierBuffer();",
  ];
}

/** The shared declaration lastSliceOnly needs. */
export const SLICE_COUNT_SHARED = "shared int ppl_done;";

/** Statements that set `acc` to the sum of output element `flat`'s partials in slice order. */
export function slicesSum(sh: ShaderBuilder, node: Node, scratch: ScratchBuffer, slices: number, acc: string, flat: string): string {
  return `${glslType(node.dtype)} ${acc} = ${literal(0, node.dtype)}; for (int q = 0; q < ${slices}; q++) ${acc} += ${sh.bind(scratch, "read")}[q * ${node.size} + ${flat}];`;
}

/** The statement of the tile's last workgroup that readies its count for the next dispatch. */
export function resetSliceCount(sh: ShaderBuilder, counter: ScratchBuffer): string {
  return `if (gl_LocalInvocationIndex == 0) ${sh.bind(counter, "readwrite")}[tileId] = 0;`;
}

/**
 * The merge pass of a split product. With few slices one thread per output element sums its
 * partials in slice order. With many (Xᵀ·R over 100k rows: 511), one thread summing them all is
 * a long chain of loads that only a few workgroups run (8 µs of a 88 µs gradient on an H200), so
 * S threads share an output: thread j sums slices j, j + S, … in order, then a fixed tree in
 * shared memory adds the S sums. Either way the order is fixed: the result is the same on every run.
 */
export function sliceSumKernel(node: Node, scratch: ScratchBuffer, slices: number, f: KernelFactory): KernelPlan {
  const sh = f.shader();
  const L = f.limits.localSize;
  const T = glslType(node.dtype);
  const zero = literal(0, node.dtype);
  // At least 8 partials a lane.
  const S = outputLanes(slices, 8, f.limits.groupSize);
  const partial = (p: string, u: string) => `${sh.bind(scratch, "read")}[${p} * ${node.size} + ${u}]`;
  if (S === 1) {
    const main = [
      `int u = gid * ${L} + int(gl_LocalInvocationIndex);`,
      `if (u >= ${node.size}) return;`,
      `${T} acc = ${zero};`,
      `for (int p = 0; p < ${slices}; p++) acc += ${partial("p", "u")};`,
      sh.storage.write(node, "u", "acc"),
    ];
    return f.finish({ node, localSize: L, workgroups: Math.ceil(node.size / L), units: node.size, main, title: `sum of ${slices} k-slices` }, sh);
  }
  // O outputs a workgroup (of the cooperative kernels' size); thread t = j·O + o, so that a
  // subgroup's loads at one step are runs of consecutive outputs of the same slices.
  const O = Math.max(1, Math.floor(f.limits.groupSize / S));
  const threads = O * S;
  const main = [
    `int t = int(gl_LocalInvocationIndex); int j = t / ${O}; int o = t - j * ${O}; int u = gid * ${O} + o;`,
    `${T} acc = ${zero};`,
    `if (u < ${node.size}) { for (int p = j; p < ${slices}; p += ${S}) acc += ${partial("p", "u")}; }`,
    ...laneTree(S, O, `u < ${node.size}`, (sum) => sh.storage.write(node, "u", sum)),
  ];
  return f.finish(
    {
      node, localSize: threads, workgroups: Math.ceil(node.size / O), units: node.size * S, main, shared: [laneTreeShared(node.dtype, threads)],
      title: `sum of ${slices} k-slices, ${S} threads an output`,
    },
    sh,
  );
}


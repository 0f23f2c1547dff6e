import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import type { KernelFactory } from "./kernel-factory.ts";
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
 * The merge pass of a split product: one thread per output element sums its `slices` partials
 * from `scratch` in slice order, so the result is the same on every run.
 */
export function sliceSumKernel(node: Node, scratch: ScratchBuffer, slices: number, f: KernelFactory): KernelPlan {
  const sh = f.shader();
  const L = f.limits.localSize;
  const T = glslType(node.dtype);
  const main = [
    `int u = gid * ${L} + int(gl_LocalInvocationIndex);`,
    `if (u >= ${node.size}) return;`,
    `${T} acc = ${literal(0, node.dtype)};`,
    `for (int p = 0; p < ${slices}; p++) acc += ${sh.bind(scratch, "read")}[p * ${node.size} + u];`,
    sh.storage.write(node, "u", "acc"),
  ];
  return f.finish({ node, localSize: L, workgroups: Math.ceil(node.size / L), units: node.size, main, title: `sum of ${slices} k-slices` }, sh);
}

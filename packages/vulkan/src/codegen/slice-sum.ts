import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import type { ScratchBuffer, ShaderBuilder } from "./shader.ts";

/**
 * The scratch buffer of a product split into `slices` slices of its inner dimension: slice p's
 * partial of output element e at p·size + e, so the merging threads read consecutive elements.
 */
export function sliceScratch(node: Node, slices: number): ScratchBuffer {
  return { kind: "scratch", dtype: node.dtype, size: slices * node.size, label: `${slices} partial products per output`, shared: true };
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

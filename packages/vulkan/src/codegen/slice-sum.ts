import type { Node } from "@ppl/tensor";
import { glslType, literal } from "./glsl.ts";
import type { KernelFactory } from "./kernel-factory.ts";
import type { KernelPlan, ScratchBuffer } from "./shader.ts";

/**
 * The scratch buffer of a product split into `slices` slices of its inner dimension: slice p's
 * partial of output element e at p·size + e, so the merge pass reads consecutive elements in
 * consecutive threads.
 */
export function sliceScratch(node: Node, slices: number): ScratchBuffer {
  return { kind: "scratch", dtype: node.dtype, size: slices * node.size, label: `${slices} partial products per output` };
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

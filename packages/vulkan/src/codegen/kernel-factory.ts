import type { Node } from "@ppl/tensor";
import type { SlicedValue } from "./kernel-plan.ts";
import type { RenderLimits } from "./limits.ts";
import type { KernelPlan, ShaderBuilder, ShaderParts } from "./shader.ts";

/** What a multi-kernel renderer needs from the program: fresh shaders and a way to finish one. */
export interface KernelFactory {
  readonly limits: RenderLimits;
  /** True for nodes held in buffers (row-major); the others are computed inline where read. */
  isStored(n: Node): boolean;
  /** Row-pass sums left as partials, which their readers add up (inline-slices.ts); none by default. */
  readonly sliced?: ReadonlyMap<Node, SlicedValue>;
  shader(): ShaderBuilder;
  finish(parts: ShaderParts, shader: ShaderBuilder): KernelPlan;
}

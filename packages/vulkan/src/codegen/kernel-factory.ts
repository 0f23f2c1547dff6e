import type { RenderLimits } from "./limits.ts";
import type { KernelPlan, ShaderBuilder, ShaderParts } from "./shader.ts";

/** What a multi-kernel renderer needs from the program: fresh shaders and a way to finish one. */
export interface KernelFactory {
  readonly limits: RenderLimits;
  shader(): ShaderBuilder;
  finish(parts: ShaderParts, shader: ShaderBuilder): KernelPlan;
}

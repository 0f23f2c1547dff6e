import { readFileSync } from "node:fs";
import { kernelPrelude } from "../codegen/kernel-prelude.ts";
import { SHADER_DIR } from "./nuts-program.ts";
import { INT_STATE } from "./steps-per-submit.ts";
import { workgroupSumSource } from "./workgroup-sum.ts";

/** Buffers of the controller kernel (shaders/nuts/controller.glsl). */
export const CONTROLLER_BUFFERS = 15;

/** Vector, real and int state slots per chain, as controller.glsl lays them out. */
export function controllerStateSizes(dim: number, maxDepth: number): { vectors: number; reals: number; ints: number } {
  return { vectors: (22 + 7 * maxDepth) * dim, reals: 8, ints: INT_STATE };
}

/** Threads per chain of the controller: enough to cover the state vectors, a power of two in [32, 256]. */
export function controllerWorkgroup(dim: number): number {
  return Math.min(256, Math.max(32, 2 ** Math.ceil(Math.log2(Math.max(1, dim)))));
}

/**
 * The GLSL of the NUTS controller for the whole-device shape: one workgroup per chain runs the
 * transition's bookkeeping between two batched gradient evaluations.
 */
export function controllerProgram(dim: number, opts: { chains: number; maxDepth: number; dtype: "f32" | "f64"; workgroup: number }): string {
  const W = opts.workgroup;
  return [
    "#version 450",
    `#define NREAL ${opts.dtype === "f64" ? "double" : "float"}`,
    `#define SFX(name) name##_${opts.dtype}`,
    `#define D ${dim}`,
    `#define MAXD ${opts.maxDepth}`,
    `#define CHAINS ${opts.chains}`,
    "#define CHAIN_ID gl_WorkGroupID.x",
    "#define LEADER (gl_LocalInvocationID.x == 0u)",
    `#define WG ${W}`,
    "#define LID gl_LocalInvocationID.x",
    `layout(local_size_x = ${W}) in;`,
    kernelPrelude(new Set([opts.dtype])),
    "#define OWN ((D + WG - 1) / WG)",
    "#define FOR_OWNED(s, i) for (int s = 0, i = int(LID); s < OWN && i < D; s++, i += WG)",
    ...workgroupSumSource(opts.dtype, W),
    readFileSync(`${SHADER_DIR}common.glsl`, "utf8"),
    readFileSync(`${SHADER_DIR}controller.glsl`, "utf8"),
  ].join("\n");
}

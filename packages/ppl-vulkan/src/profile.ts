import type { VulkanManager } from "@ppl/vulkan";
import type { KernelProfile } from "./engine.ts";

// A profiling build of a NUTS kernel (the device shape's controller, or the fused transition of the
// thread and workgroup shapes) reads the device's cycle counter (VK_KHR_shader_clock) at marks
// between the parts of its work (PROF_MARK in shaders/nuts/common.glsl, controller.glsl,
// transition.glsl) and adds each part's cycles, as the chain's leader saw them, to a buffer:
// three words a part and chain (cycles low, cycles high, the calls in which the part ran).

/** The GLSL a profiling build adds: the extension (a shader's first line after #version), the part numbers and the buffer at `binding`. */
export function profileSource(parts: readonly string[], binding: number): { extension: string; lines: string[] } {
  return {
    extension: "#extension GL_ARB_shader_clock : require",
    lines: [
      "#define PPL_PROFILE",
      `#define PROF_PARTS ${parts.length}`,
      ...parts.map((part, k) => `#define PROF_${part.toUpperCase()} ${k}`),
      `layout(std430, set = 0, binding = ${binding}) buffer ProfBuf { uint v[]; } bprof;`,
    ],
  };
}

/** Throws unless the manager's device can read its cycle counter (shaderSubgroupClock): `kernel` names what was to be profiled. */
export function requireCycleCounter(manager: VulkanManager, kernel: string): void {
  if (!manager.device.features.shaderSubgroupClock) throw new Error(`device '${manager.device.name}' has no shaderSubgroupClock: ${kernel} cannot be profiled`);
}

/** Words of the profile buffer per chain. */
export function profileWords(parts: readonly string[]): number {
  return parts.length * 3;
}

/**
 * The profile buffer's words summed over the chains: a call is one in which the first part ran
 * (the controller's load; the fused transition's log density, once a leapfrog).
 */
export function readProfile(words: Uint32Array, chains: number, parts: readonly string[]): KernelProfile {
  const P = parts.length;
  const cycles = new Float64Array(P), ran = new Float64Array(P);
  for (let c = 0; c < chains; c++) {
    for (let k = 0; k < P; k++) {
      const at = (c * P + k) * 3;
      // The high word is signed (PROF_FLUSH adds each call's count sign-extended).
      cycles[k] = cycles[k]! + words[at]! + (words[at + 1]! | 0) * 2 ** 32;
      ran[k] = ran[k]! + words[at + 2]!;
    }
  }
  const calls = ran[0]!;
  return { calls, parts: parts.map((part, k) => ({ part, cyclesPerCall: calls > 0 ? cycles[k]! / calls : 0, share: calls > 0 ? ran[k]! / calls : 0 })) };
}

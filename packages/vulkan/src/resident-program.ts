import type { DType, TensorValue } from "@ppl/tensor";
import type { Algorithm } from "./algorithm.ts";
import type { VulkanBuffer } from "./buffer.ts";
import type { Binding, ProgramPlan } from "./codegen/program.ts";
import { compileGlsl } from "./glslc.ts";
import type { VulkanManager } from "./manager.ts";

/** Bytes per element of each dtype in a buffer (bool as i32). */
export const BYTES: Record<DType, number> = { f64: 8, f32: 4, i32: 4, bool: 4 };

/** Values as the bytes of a buffer of `dtype`. */
export function toBytes(dtype: DType, data: ArrayLike<number>): ArrayBufferView {
  switch (dtype) {
    case "f64": return data instanceof Float64Array ? data : Float64Array.from(data);
    case "f32": return Float32Array.from(data);
    default: return Int32Array.from(data, (v) => (dtype === "bool" ? (v ? 1 : 0) : v | 0));
  }
}

/** A bound value as the bytes of a buffer of `dtype`: its 32-bit copy as it is, where it has one. */
export function boundBytes(dtype: DType, value: Pick<TensorValue, "data" | "f32">): ArrayBufferView {
  return dtype === "f32" && value.f32 ? value.f32 : toBytes(dtype, value.data);
}

/** One kernel of a program, ready to record: its pipeline, its buffers in binding order, its workgroups. */
export interface Dispatch {
  readonly algorithm: Algorithm;
  readonly buffers: readonly VulkanBuffer[];
  readonly groups: readonly [number, number];
  /** What the kernel computes: its source's first comment line (for timings kernel by kernel). */
  readonly label: string;
}

/** A planned program made resident on a device. */
export interface ResidentProgram {
  /** A buffer for every node binding (array constants already written) and every scratch buffer. */
  readonly buffers: ReadonlyMap<Binding, VulkanBuffer>;
  /** The kernels in program order. */
  readonly dispatches: readonly Dispatch[];
  destroy(): void;
}

/**
 * Compile a plan's kernels (no -O: glslc's optimizer inlines the whole prelude and takes seconds
 * per kernel, and the driver optimizes the SPIR-V anyway), allocate its buffers and write its
 * array constants; params and data are left for the caller to bind (the data of `plan.half` as
 * toFloat16Bytes).
 */
export async function residentProgram(manager: VulkanManager, plan: ProgramPlan): Promise<ResidentProgram> {
  const spirv = await Promise.all(plan.kernels.map((k) => compileGlsl(k.source, { optimize: false })));
  const buffers = new Map<Binding, VulkanBuffer>();
  for (const n of plan.buffers) {
    // A data leaf stored in 16 bits takes 2 bytes an element, padded to whole words as toFloat16Bytes pads it.
    const bytes = plan.half.has(n) ? 2 * (n.size + (n.size % 2)) : n.size * BYTES[n.dtype];
    const buf = manager.buffer(Math.max(4, bytes));
    buffers.set(n, buf);
    const v = n.attrs.value;
    if (n.op === "const" && v instanceof Float64Array) buf.write(toBytes(n.dtype, v));
  }
  // Scratch buffers carry partial results between the passes of one node; nothing reads them outside.
  for (const s of plan.scratch) {
    const buf = manager.buffer(Math.max(4, s.size * BYTES[s.dtype]));
    // Counters of a dispatch's workgroups start at zero (their last workgroup resets them).
    if (s.shared) buf.fillZero();
    buffers.set(s, buf);
  }
  // The driver builds the kernels' pipelines at once, off the main thread.
  const algorithms = await Promise.all(plan.kernels.map((k, i) => manager.algorithmAsync(spirv[i]!, { buffers: k.bindings.length })));
  const dispatches = plan.kernels.map((k, i) => ({ algorithm: algorithms[i]!, buffers: k.bindings.map((b) => buffers.get(b)!), groups: k.groups, label: kernelLabel(k.source) }));
  return {
    buffers,
    dispatches,
    destroy() {
      algorithms.forEach((a) => a.destroy());
      buffers.forEach((b) => b.destroy());
    },
  };
}

// A kernel's first comment line, without the comment marker.
function kernelLabel(source: string): string {
  const line = source.split("\n").find((l) => l.startsWith("//")) ?? "";
  return line.replace(/^\/\/\s*/, "");
}

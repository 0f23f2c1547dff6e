import type { Backend, Bindings, DType, Executable, Node, TensorValue } from "@ppl/tensor";
import { GraphError, fmt, sameShape, sizeOf } from "@ppl/tensor";
import type { Algorithm } from "./algorithm.ts";
import type { VulkanBuffer } from "./buffer.ts";
import { limitsOf, type RenderLimits } from "./codegen/limits.ts";
import { planProgram, type Binding, type ProgramPlan } from "./codegen/program.ts";
import { listDevices } from "./devices.ts";
import { compileGlsl } from "./glslc.ts";
import { VulkanManager } from "./manager.ts";
import type { Sequence } from "./sequence.ts";
import { kernelPrelude } from "./codegen/kernel-prelude.ts";

/** Options of the Vulkan backend. */
export interface VulkanBackendOptions {
  /** Device index from listDevices() (default: the best usable one). */
  device?: number;
  /** Route transfers through staging buffers even on unified memory. */
  forceStaging?: boolean;
  /** GLSL source of the prelude for the dtypes a kernel uses. */
  prelude?: (dtypes: ReadonlySet<DType>) => string;
  /** Overrides of the device's render limits (tests force the parallel kernels on small inputs this way). */
  limits?: Partial<RenderLimits>;
}

/** The Vulkan backend: every node of a graph runs in generated compute shaders, none on the host. */
export async function vulkanBackend(options: VulkanBackendOptions = {}): Promise<Backend> {
  const manager = new VulkanManager(options.device, { forceStaging: options.forceStaging ?? false });
  const info = listDevices().devices.find((d) => d.index === manager.deviceIndex)!;
  const limits: RenderLimits = { ...limitsOf(info), ...options.limits };
  const prelude = options.prelude ?? kernelPrelude;
  const cache = new Map<string, Promise<Executable>>();
  return {
    name: "vulkan",
    device: `${info.name} (${info.type}, Vulkan ${info.apiVersion})`,
    compile(outputs) {
      const key = outputs.map((o) => o.hash).join(",");
      let exe = cache.get(key);
      if (!exe) {
        // A disposed executable leaves the cache, so the next compile of the graph makes a fresh one.
        exe = compileProgram(manager, outputs, limits, prelude, () => cache.delete(key));
        cache.set(key, exe);
      }
      return exe;
    },
  };
}

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

function fromBytes(dtype: DType, bytes: ArrayBuffer, n: number): Float64Array {
  switch (dtype) {
    case "f64": return new Float64Array(bytes, 0, n).slice();
    case "f32": return Float64Array.from(new Float32Array(bytes, 0, n));
    default: return Float64Array.from(new Int32Array(bytes, 0, n));
  }
}

async function compileProgram(
  manager: VulkanManager,
  outputs: readonly Node[],
  limits: RenderLimits,
  prelude: (dtypes: ReadonlySet<DType>) => string,
  onDispose: () => void,
): Promise<Executable> {
  const plan: ProgramPlan = planProgram(outputs, limits, prelude);
  // No -O: glslc's optimizer inlines the whole prelude and takes seconds per kernel; the
  // driver's own compiler optimizes the SPIR-V anyway.
  const spirv = await Promise.all(plan.kernels.map((k) => compileGlsl(k.source, { optimize: false })));
  const buffers = new Map<Binding, VulkanBuffer>();
  for (const n of plan.buffers) {
    const buf = manager.buffer(Math.max(4, sizeOf(n.shape) * BYTES[n.dtype]));
    buffers.set(n, buf);
    const v = n.attrs.value;
    if (n.op === "const" && v instanceof Float64Array) buf.write(toBytes(n.dtype, v));
  }
  // Scratch buffers carry partial results between the passes of one node; nothing reads them outside.
  for (const s of plan.scratch) buffers.set(s, manager.buffer(Math.max(4, s.size * BYTES[s.dtype])));
  const algorithms: Algorithm[] = plan.kernels.map((k, i) => manager.algorithm(spirv[i]!, { buffers: k.bindings.length }));
  const sequence: Sequence = manager.sequence();
  plan.kernels.forEach((k, i) => sequence.dispatch(algorithms[i]!, k.bindings.map((b) => buffers.get(b)!), [k.groups[0], k.groups[1]]));
  const inputs = plan.buffers.filter((n) => n.op === "param" || n.op === "data");
  // Every output has a buffer: stored nodes always do (schedule materializes outputs).
  const bind = (values: Bindings) => {
    for (const n of inputs) {
      const name = n.attrs.name!;
      const v = values[name];
      if (v === undefined) throw new GraphError(`no value bound for ${n.op} '${name}'`);
      let data: ArrayLike<number>;
      if (typeof v === "number") data = [v];
      else if ("data" in v && "shape" in v) {
        if (!sameShape(v.shape, n.shape)) throw new GraphError(`${n.op} '${name}' has shape ${fmt(v.shape)}, the graph expects ${fmt(n.shape)}`);
        data = v.data;
      } else data = v as ArrayLike<number>;
      if (data.length !== n.size) throw new GraphError(`${n.op} '${name}' has ${data.length} values, the graph expects ${n.size} (shape ${fmt(n.shape)})`);
      buffers.get(n)!.write(toBytes(n.dtype, data));
    }
  };
  const read = async (): Promise<TensorValue[]> =>
    Promise.all(
      outputs.map(async (o) => {
        const bytes = await buffers.get(o)!.readAsync(Math.max(4, o.size * BYTES[o.dtype]));
        return { dtype: o.dtype, shape: o.shape, data: fromBytes(o.dtype, bytes, o.size) };
      }),
    );
  return {
    outputs,
    stats: { kernels: plan.kernels.length, hostNodes: 0 },
    source: plan.kernels.map((k) => k.source).join("\n// ----\n"),
    async run(values) {
      bind(values);
      if (plan.kernels.length > 0) await sequence.submit();
      return read();
    },
    dispose() {
      onDispose();
      sequence.destroy();
      algorithms.forEach((a) => a.destroy());
      buffers.forEach((b) => b.destroy());
    },
  } as Executable & { source: string };
}

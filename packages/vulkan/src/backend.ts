import type { Backend, Bindings, DType, Executable, Node, TensorValue } from "@ppl/tensor";
import { boundValues } from "@ppl/tensor/backend";
import { limitsOf, type RenderLimits } from "./codegen/limits.ts";
import { checkIndexRange, indexLeaves } from "./codegen/index-range.ts";
import { planProgram, type ProgramPlan } from "./codegen/program.ts";
import { listDevices } from "./devices.ts";
import { VulkanManager } from "./manager.ts";
import { BYTES, residentProgram, toBytes } from "./resident-program.ts";
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
  /** Run independent kernels of a program as one dispatch (default true; tests compare both). */
  merge?: boolean;
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
        exe = compileProgram(manager, outputs, limits, prelude, options.merge ?? true, () => cache.delete(key));
        cache.set(key, exe);
      }
      return exe;
    },
  };
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
  merge: boolean,
  onDispose: () => void,
): Promise<Executable> {
  // One dispatch per dependency level rather than per kernel: a sequence of tiny kernels is bound by
  // the cost of each dispatch and barrier, not by its work.
  const plan: ProgramPlan = planProgram(outputs, limits, prelude, { merge });
  const program = await residentProgram(manager, plan);
  const buffers = program.buffers;
  const sequence: Sequence = manager.sequence();
  program.dispatches.forEach((d) => sequence.dispatch(d.algorithm, d.buffers, d.groups));
  const inputs = plan.buffers.filter((n) => n.op === "param" || n.op === "data");
  // Index data are checked as they are bound: on the device an out-of-range entry could only be dropped.
  const indexChecks = indexLeaves(outputs);
  // Every output has a buffer: stored nodes always do (schedule materializes outputs).
  const bind = (values: Bindings) => {
    for (const n of inputs) {
      const data = boundValues(n, values);
      for (const c of indexChecks) if (c.leaf === n) checkIndexRange(c.op, data, c.size, `data '${n.attrs.name!}'`);
      buffers.get(n)!.write(toBytes(n.dtype, data));
    }
  };
  // The plan's outputs: the given ones, or their rebuilt equals when planning split a wide concat.
  const read = async (): Promise<TensorValue[]> =>
    Promise.all(
      plan.outputs.map(async (o) => {
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
      program.destroy();
    },
  } as Executable & { source: string };
}

import { gradientGraph, type CompiledModel } from "@ppl/ppl";
import type { Node } from "@ppl/tensor";
import { type EpilogueSource, type VulkanBuffer, limitsOf, type ProgramPlan, type RenderLimits, planProgram, type VulkanManager, type Sequence } from "@ppl/vulkan";
import { boundBytes, kernelPrelude, BYTES, residentProgram, type Dispatch } from "@ppl/vulkan/internals";
import { checkDataPrecision, halfDataBytes, halfDataLeaves, type DataPrecision } from "./data-precision.ts";
import { rowsInIndexOrder, sortedIndexOver, type BoundData } from "./row-order.ts";

/**
 * The log density and gradient of every chain at once, as resident kernels: write positions into
 * `q` ([C·D]), run `step` (the kernels that depend on q), read `lp` ([C]) and `grad` ([C·D]).
 */
export interface BatchedGradient {
  readonly q: VulkanBuffer;
  readonly lp: VulkanBuffer;
  readonly grad: VulkanBuffer;
  /** The kernels to run per evaluation, in order. */
  readonly step: readonly Dispatch[];
  /** Kernels of the whole program (those that read only data ran once, at preparation). */
  readonly kernels: number;
  readonly source: string;
  /** The data leaves read from float16_t buffers (dataPrecision "f16"). */
  readonly half: ReadonlySet<Node>;
  /** A shader that runs `batchedEpilogue`'s functions in place of the kernel of lp and grad: the buffers it binds for them, and `step` less that kernel. */
  epilogue(e: EpilogueSource): { readonly buffers: readonly VulkanBuffer[]; readonly step: readonly Dispatch[] };
  /** Frees the kernels and buffers on the device. */
  dispose(): void;
}

/**
 * lp and the gradient as GLSL functions for a shader that reads them (planProgram's epilogue):
 * `ppl_out0(c)` chain c's lp, `ppl_out1(c·D + i)` its gradient's element i (after `ppl_prepare(c)`),
 * reading q through the shader's array `qArray`, the other buffers bound from `base` on. Undefined
 * where the kernel of lp and grad does more than that, or does not run at every evaluation (reads no q).
 */
export function batchedEpilogue(plan: BatchedGradientPlan, base: number, qArray: string, chains: number): EpilogueSource | undefined {
  const kernel = plan.kernels[plan.outputKernel];
  if (!kernel || !plan.buffers.some((n) => n.op === "param") || !dependsOnParams(plan.outputs)(kernel.node)) return undefined;
  return plan.epilogue(base, (n) => (n.op === "param" ? qArray : undefined), chains);
}

/** The model parts the batched gradient needs. */
export type BatchedModel = Pick<CompiledModel, "logDensity" | "q" | "dataBindings">;

/** The kernels of a batched gradient, and the data to bind to them. */
export interface BatchedGradientPlan extends ProgramPlan {
  /** The model's data, with the rows in group order where lp and grad allow it (row-order.ts). */
  readonly data: BoundData;
}

/** How the batched gradient's kernels are arranged. */
export interface BatchedGradientOptions {
  /** Each kernel its own dispatch, none merged (for timing kernels one by one); default false. */
  readonly separate?: boolean;
  /** The plan, where the caller made it already (batchedGradientPlan with the same arguments). */
  readonly plan?: BatchedGradientPlan;
}

/**
 * The kernels of the batched gradient of C chains (lp and grad are the plan's outputs), rendered
 * for a device's limits; with `dataPrecision` "f16" the large float data are float16_t buffers.
 */
export function batchedGradientPlan(
  model: Pick<CompiledModel, "logDensity" | "q" | "dataBindings">, chains: number, dtype: "f32" | "f64", limits: RenderLimits, dataPrecision: DataPrecision = "exact",
  options: BatchedGradientOptions = {},
): BatchedGradientPlan {
  const graph = gradientGraph(model, { dtype, chains });
  // Independent kernels share a dispatch (a small model's gradient is latency-bound by its count of
  // dispatches), but those that read only data stay apart: they run once, at preparation.
  const readsQ = dependsOnParams([graph.lp, graph.grad]);
  const halfStorage = halfDataLeaves([graph.lp, graph.grad], dataPrecision, model.dataBindings);
  // Rows sorted by their group index where lp and grad are sums over them; a scatter by an index
  // that the data then hold sorted reads its rows in place.
  const data = rowsInIndexOrder([graph.lp, graph.grad], model.dataBindings);
  const plan = planProgram([graph.lp, graph.grad], limits, kernelPrelude, {
    merge: options.separate ? false : (n) => (readsQ(n) ? "step" : "once"), halfStorage, sortedIndex: sortedIndexOver(data),
  });
  return { ...plan, data };
}

/**
 * Take lp and its gradient for C chains as one batched graph (ppl's gradientGraph, vmapped over the
 * chain axis, so the data are read once for all chains), plan it into multi-workgroup kernels with the backend's
 * codegen, bind the data (rows in group order where the sums allow it), and run once the kernels that read only data. `dataPrecision` "f16"
 * stores the large float data in 16 bits (DataPrecisionError on a device without 16-bit storage).
 */
export async function batchedGradient(
  manager: VulkanManager,
  model: BatchedModel,
  chains: number,
  dtype: "f32" | "f64",
  limits: RenderLimits = limitsOf(manager.device),
  dataPrecision: DataPrecision = "exact",
  options: BatchedGradientOptions = {},
): Promise<BatchedGradient> {
  checkDataPrecision(manager.device, dataPrecision);
  const plan = options.plan ?? batchedGradientPlan(model, chains, dtype, limits, dataPrecision, options);
  const outs = plan.outputs;
  const program = await residentProgram(manager, plan);
  const data = plan.data;
  let q: VulkanBuffer | undefined;
  for (const n of plan.buffers) {
    if (n.op === "data") {
      const bound = data[n.attrs.name!];
      if (!bound) throw new Error(`GPU sampler: no data bound for '${n.attrs.name}'`);
      const name = n.attrs.name!;
      program.buffers.get(n)!.write(plan.half.has(n) ? halfDataBytes(name, bound.data) : boundBytes(n.dtype, bound));
    } else if (n.op === "param") q = program.buffers.get(n);
  }
  // A density that never reads q still needs somewhere for the controller to write positions.
  const spare = q ? undefined : manager.buffer(Math.max(4, chains * model.q.size * BYTES[dtype]));
  // Kernels that depend only on data give the same result at every evaluation: run them now.
  const readsQ = dependsOnParams(outs);
  const once = program.dispatches.filter((_, i) => !readsQ(plan.kernels[i]!.node));
  if (once.length > 0) {
    const s: Sequence = manager.sequence();
    once.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
    s.submitSync();
    s.destroy();
  }
  const step = program.dispatches.filter((_, i) => readsQ(plan.kernels[i]!.node));
  return {
    q: (q ?? spare)!,
    lp: program.buffers.get(outs[0]!)!,
    grad: program.buffers.get(outs[1]!)!,
    step,
    epilogue: (e) => ({
      buffers: e.bindings.map((b) => program.buffers.get(b)!),
      step: step.filter((d) => d !== program.dispatches[plan.outputKernel]),
    }),
    kernels: plan.kernels.length,
    source: plan.kernels.map((k) => k.source).join("\n// ----\n"),
    half: plan.half,
    dispose() {
      program.destroy();
      spare?.destroy();
    },
  };
}

/** A memoized test of whether a node depends on a param leaf. */
function dependsOnParams(outputs: readonly Node[]): (n: Node) => boolean {
  const memo = new Map<Node, boolean>();
  const visit = (n: Node): boolean => {
    let r = memo.get(n);
    if (r === undefined) {
      r = n.op === "param" || n.inputs.some(visit);
      memo.set(n, r);
    }
    return r;
  };
  outputs.forEach(visit);
  return visit;
}

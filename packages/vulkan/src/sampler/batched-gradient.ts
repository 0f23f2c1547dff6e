import { castFloats, optimize, valueAndGrad, vmap, type Node, type TensorValue } from "@ppl/tensor";
import type { Algorithm } from "../algorithm.ts";
import { BYTES, toBytes } from "../backend.ts";
import type { VulkanBuffer } from "../buffer.ts";
import { kernelPrelude } from "../codegen/kernel-prelude.ts";
import { limitsOf, type RenderLimits } from "../codegen/limits.ts";
import { planProgram, type Binding } from "../codegen/program.ts";
import { compileGlsl } from "../glslc.ts";
import type { VulkanManager } from "../manager.ts";
import type { Sequence } from "../sequence.ts";

/** One recorded dispatch of a kernel over its buffers. */
export interface Dispatch {
  readonly algorithm: Algorithm;
  readonly buffers: readonly VulkanBuffer[];
  readonly groups: readonly [number, number];
}

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
  dispose(): void;
}

/** The model parts the batched gradient needs. */
export interface BatchedModel {
  readonly logDensity: Node;
  readonly q: Node;
  readonly dataBindings: Readonly<Record<string, TensorValue>>;
}

/**
 * Build lp and its gradient for C chains as one batched graph (vmap over the chain axis, so the
 * data are read once for all chains), plan it into multi-workgroup kernels with the backend's
 * codegen, bind the data, and run once the kernels that read only data.
 */
export async function batchedGradient(
  manager: VulkanManager,
  model: BatchedModel,
  chains: number,
  dtype: "f32" | "f64",
  limits: RenderLimits = limitsOf(manager.device),
): Promise<BatchedGradient> {
  const { value, grads } = valueAndGrad(model.logDensity, [model.q]);
  let outs = optimize(vmap(optimize([value, grads[0]!]), new Map([[model.q, chains]])));
  if (dtype === "f32") outs = castFloats(outs, "f32");
  const plan = planProgram(outs, limits, kernelPrelude);
  const spirv = await Promise.all(plan.kernels.map((k) => compileGlsl(k.source, { optimize: false })));
  const buffers = new Map<Binding, VulkanBuffer>();
  let q: VulkanBuffer | undefined;
  for (const n of plan.buffers) {
    const buf = manager.buffer(Math.max(4, n.size * BYTES[n.dtype]));
    buffers.set(n, buf);
    const v = n.attrs.value;
    if (n.op === "const" && v instanceof Float64Array) buf.write(toBytes(n.dtype, v));
    else if (n.op === "data") {
      const bound = model.dataBindings[n.attrs.name!];
      if (!bound) throw new Error(`GPU sampler: no data bound for '${n.attrs.name}'`);
      buf.write(toBytes(n.dtype, bound.data));
    } else if (n.op === "param") q = buf;
  }
  for (const s of plan.scratch) buffers.set(s, manager.buffer(Math.max(4, s.size * BYTES[s.dtype])));
  // A density that never reads q still needs somewhere for the controller to write positions.
  q ??= manager.buffer(Math.max(4, chains * model.q.size * BYTES[dtype]));
  const algorithms = plan.kernels.map((k, i) => manager.algorithm(spirv[i]!, { buffers: k.bindings.length }));
  const dispatches: Dispatch[] = plan.kernels.map((k, i) => ({ algorithm: algorithms[i]!, buffers: k.bindings.map((b) => buffers.get(b)!), groups: k.groups }));
  // Kernels that depend only on data give the same result at every evaluation: run them now.
  const readsQ = dependsOnParams(outs);
  const once = dispatches.filter((_, i) => !readsQ(plan.kernels[i]!.node));
  if (once.length > 0) {
    const s: Sequence = manager.sequence();
    once.forEach((d) => s.dispatch(d.algorithm, d.buffers, d.groups));
    s.submitSync();
    s.destroy();
  }
  const extra = q;
  return {
    q,
    lp: buffers.get(outs[0]!)!,
    grad: buffers.get(outs[1]!)!,
    step: dispatches.filter((_, i) => readsQ(plan.kernels[i]!.node)),
    kernels: plan.kernels.length,
    source: plan.kernels.map((k) => k.source).join("\n// ----\n"),
    dispose() {
      algorithms.forEach((a) => a.destroy());
      new Set([...buffers.values(), extra]).forEach((b) => b.destroy());
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

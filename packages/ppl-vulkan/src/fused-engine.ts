import { compileGlsl, limitsOf, type VulkanBuffer, type VulkanManager, type Sequence } from "@ppl/vulkan";
import { newCounters, noteWait, type Engine, type GpuModel, type StateBuffers } from "./engine.ts";
import type { MetricForm } from "./metric-source.ts";
import { FUSED_PROFILE_PARTS, NUTS_FIXED_BUFFERS, nutsProgram } from "./nuts-program.ts";
import { profileWords, readProfile, requireCycleCounter } from "./profile.ts";
import { inBindingOrder, STATE_BUFFERS } from "./nuts-layout.ts";
import { halfDataBytes, type DataPrecision } from "./data-precision.ts";
import { batchedGradient } from "./batched-gradient.ts";
import { batchedLogpGrad } from "./batched-logp-grad.ts";

/**
 * Shapes 1 and 2: the whole transitions of every chain in one fused kernel. A block of k iterations
 * is one dispatch in which every chain runs its k transitions by itself, or, with
 * `iterationsPerDispatch` 1, k dispatches of one iteration each (for lavapipe, whose 65,535-iteration
 * loop limit per invocation a dispatch of many transitions would exceed).
 */
export async function fusedEngine(
  manager: VulkanManager,
  model: GpuModel,
  state: StateBuffers,
  opts: {
    chains: number; maxDepth: number; dtype: "f32" | "f64"; shape: "thread" | "workgroup"; workgroup: number; metric: MetricForm;
    iterationsPerDispatch: "block" | 1; dataPrecision: DataPrecision;
    /** Time each leapfrog's parts with the device's cycle counter (Engine.profile); needs shaderSubgroupClock. */
    profile?: boolean;
    /** Build the batched gradient too, so that warmup's step-size searches run on the device (Engine.logpGrad). */
    searchOnDevice?: boolean;
  },
): Promise<Engine> {
  const C = opts.chains;
  const profile = opts.profile ?? false;
  if (profile) requireCycleCounter(manager, "the fused transition");
  const limits = limitsOf(manager.device);
  const program = nutsProgram(model.logDensity, model.q, { ...opts, limits, dataBindings: model.dataBindings, profile });
  // The fused kernel and the batched gradient build together; whichever fails, the other is released.
  const [algorithmResult, gradientResult] = await Promise.allSettled([
    compileGlsl(program.source, { optimize: false }).then((spirv) =>
      manager.algorithmAsync(spirv, { buffers: NUTS_FIXED_BUFFERS + 1 + program.data.length + (profile ? 1 : 0), pushConstantSize: 8 })),
    opts.searchOnDevice ? batchedGradient(manager, model, C, opts.dtype, limits, opts.dataPrecision) : Promise.resolve(undefined),
  ]);
  if (algorithmResult.status === "rejected" || gradientResult.status === "rejected") {
    if (algorithmResult.status === "fulfilled") algorithmResult.value.destroy();
    if (gradientResult.status === "fulfilled") gradientResult.value?.dispose();
    throw algorithmResult.status === "rejected" ? algorithmResult.reason : (gradientResult as PromiseRejectedResult).reason;
  }
  const algorithm = algorithmResult.value;
  const gradient = gradientResult.value;
  const Real = opts.dtype === "f64" ? Float64Array : Float32Array;
  const dataBuffers: VulkanBuffer[] = program.data.map((n) => {
    const bound = n.op === "const" ? undefined : model.dataBindings[n.attrs.name!];
    const values = n.op === "const" ? (n.attrs.value as Float64Array) : bound?.data;
    if (!values) throw new Error(`GPU sampler: no data bound for '${n.attrs.name}'`);
    const arr = program.half.has(n) ? halfDataBytes(n.attrs.name!, values)
      : n.dtype === "i32" || n.dtype === "bool" ? Int32Array.from(values) : Real === Float32Array && bound?.f32 ? bound.f32 : Real.from(values);
    return manager.bufferFrom(arr);
  });
  // Thread shape: one slice per thread of every dispatched workgroup (threads past the last chain exit early).
  const groups = opts.shape === "workgroup" ? C : Math.ceil(C / program.localSize);
  const slices = opts.shape === "workgroup" ? C : groups * program.localSize;
  const scratch = manager.buffer(Math.max(4, slices * Math.max(1, program.scratch) * Real.BYTES_PER_ELEMENT));
  // The profile's words, after the data (nuts-program.ts binds it there).
  const words = C * profileWords(FUSED_PROFILE_PARTS);
  const profiled = profile ? manager.buffer(words * 4) : undefined;
  profiled?.write(new Uint32Array(words));
  const buffers = [...inBindingOrder(STATE_BUFFERS, state), scratch, ...dataBuffers, ...(profiled ? [profiled] : [])];
  const sequences = new Map<number, Sequence>();
  const sequenceFor = (k: number): Sequence => {
    let s = sequences.get(k);
    if (!s) {
      const t0 = performance.now();
      s = manager.sequence();
      counters.sequences++;
      if (opts.iterationsPerDispatch === "block") s.dispatch(algorithm, buffers, groups, new Uint32Array([0, k]));
      else for (let i = 0; i < k; i++) s.dispatch(algorithm, buffers, groups, new Uint32Array([i, 1]));
      sequences.set(k, s);
      counters.recordSeconds += (performance.now() - t0) / 1e3;
    }
    return s;
  };
  const counters = newCounters();
  const evaluation = gradient ? batchedLogpGrad(manager, gradient, C, model.q.size, opts.dtype, counters) : undefined;
  return {
    source: program.source,
    half: program.half,
    counters,
    ...(profiled ? { profile: () => readProfile(new Uint32Array(profiled.read()), C, FUSED_PROFILE_PARTS) } : {}),
    ...(evaluation ? { logpGrad: evaluation.logpGrad } : {}),
    run(k) {
      const sequence = sequenceFor(k);
      const t0 = performance.now();
      sequence.submitSync();
      noteWait(counters, t0, k);
      counters.submits++;
    },
    async runAsync(k) {
      const sequence = sequenceFor(k);
      const t0 = performance.now();
      await sequence.submit();
      noteWait(counters, t0, k);
      counters.submits++;
    },
    dispose() {
      sequences.forEach((s) => s.destroy());
      evaluation?.dispose();
      gradient?.dispose();
      algorithm.destroy();
      [scratch, ...dataBuffers, ...(profiled ? [profiled] : [])].forEach((b) => b.destroy());
    },
  };
}

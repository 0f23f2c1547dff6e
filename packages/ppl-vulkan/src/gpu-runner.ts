import { gradientGraph } from "@ppl/ppl";
import type { PreparedRunner, RunPlan } from "@ppl/ppl/runner";
import type { VulkanBuffer, VulkanManager } from "@ppl/vulkan";
import { openDevice, releaseDevice } from "./device-pool.ts";
import { deviceEngine } from "./device-engine.ts";
import type { ControllerMode } from "./controller-program.ts";
import type { KernelProfile, Engine, EngineCounters, GpuModel, StateBuffers } from "./engine.ts";
import { stepSizeLayout, TRANSITION_STATS } from "./nuts-layout.ts";
import { blockReadback, type BlockLayout } from "./block-readback.ts";
import { deviceHostDensity, gpuTransitionRunner, type PreparedDevice } from "./gpu-transition.ts";
import { chooseShape, chooseStepSizeSearch, chooseWorkgroup, largestFactorisation, longestScan, modelWork, rowPassDecides, type ExecutionShape } from "./execution-shape.ts";
import { fusedEngine } from "./fused-engine.ts";
import { checkDataPrecision, halfDataNote, type DataPrecision } from "./data-precision.ts";
import { metricSize } from "./metric-buffer.ts";
import type { MetricForm } from "./metric-source.ts";
import { rendersRowPass } from "./logp-function.ts";

export type { GpuModel } from "./engine.ts";

export { chooseShape, chooseStepSizeSearch, chooseWorkgroup, type ExecutionShape } from "./execution-shape.ts";

/** Options of the GPU NUTS runner: ppl's run plan, with the GPU's own layout settings. */
export interface GpuNutsOptions extends Omit<RunPlan, "dtype" | "metric" | "shape"> {
  readonly dtype?: "f32" | "f64";
  /** Most iterations recorded per submission (warmup blocks also end where the host updates the metric). */
  readonly iterationsPerSubmit?: number;
  /**
   * Thread and workgroup shapes: a block's iterations in one dispatch, each chain running them by
   * itself ("block", the default on GPUs), or one dispatch per iteration (1, the default on a CPU
   * implementation of Vulkan, whose shader loops stop after 65,535 iterations).
   */
  readonly iterationsPerDispatch?: "block" | 1;
  /** Execution shape; default: chosen from the model's size and the device (see chooseShape). */
  readonly shape?: ExecutionShape;
  /** Threads per chain in the workgroup shape (a power of two); default from the model's size. */
  readonly workgroup?: number;
  /** Device shape: how the NUTS controller maps chains onto threads; default from the dimension. */
  readonly controller?: ControllerMode;
  /** The metric the run adapts: diagonal (default) or dense. */
  readonly metric?: MetricForm;
  /**
   * Thread and workgroup shapes: where warmup's step-size searches evaluate the density (through
   * GpuNuts.hostDensity), on the device with a batched gradient built beside the fused kernel, or
   * on the host; default from the data and the chains (chooseStepSizeSearch). The device shape
   * always searches on the device.
   */
  readonly stepSizeSearch?: "host" | "device";
  /**
   * Time the parts of the NUTS kernel's work with the device's cycle counter (GpuNuts.profile): the
   * device shape's controller calls, or the fused shapes' leapfrogs. The device needs shaderSubgroupClock.
   */
  readonly profile?: boolean;
}

/** A prepared GPU NUTS kernel; `factory` plugs into the sampler's `transitionRunner` option. */
export interface GpuNuts extends PreparedRunner {
  readonly device: string;
  /** The Vulkan device's type: "discrete", "integrated", "cpu" (lavapipe), … */
  readonly deviceType: string;
  readonly dtype: "f32" | "f64";
  readonly shape: ExecutionShape;
  readonly source: string;
  /** Submissions so far, (device shape) the controller + gradient steps they ran, and the command sequences recorded for them. */
  readonly counters: Readonly<EngineCounters>;
  /** With `profile`: where the controller's calls or the fused transition's leapfrogs spent their cycles so far. */
  readonly profile?: () => KernelProfile;
}

/**
 * Compile a model's NUTS transition for the GPU and return a runner for the sampler. Thread and
 * workgroup shapes: a block of iterations of all chains is one dispatch of one fused kernel, each
 * chain running its transitions by itself. Device shape: a batched gradient over all chains alternates with a controller kernel,
 * many pairs per submission, the host polling a done counter. In every shape many iterations run
 * per submission and their draws come back in batches: during warmup the device carries the
 * step-size adaptation (dual averaging) from one iteration to the next, and a block ends where the
 * host must update the metric; the host repeats the same updates from the reported statistics.
 */
export async function prepareGpuNuts(model: GpuModel, opts: GpuNutsOptions): Promise<GpuNuts> {
  const dtype = opts.dtype ?? "f32";
  const dataPrecision = opts.dataPrecision ?? "exact";
  const manager = openCheckedDevice(opts.device, dtype, dataPrecision);
  const work = modelWork(model);
  const shape = opts.shape ?? chooseShape(work, opts.chains, manager.device.type, largestFactorisation(model.logDensity), longestScan(model.logDensity), rowPassAt(model, work, opts.chains, dtype, manager.device.type));
  const layout = {
    chains: opts.chains, dim: model.q.size, blockIterations: Math.max(1, opts.iterationsPerSubmit ?? 100), dtype, metric: opts.metric ?? "diag", maxDepth: opts.maxDepth,
  } as const;
  const state = stateBuffers(manager, layout);
  const readback = blockReadback(manager, state, layout);
  let engine: Engine;
  try {
    engine = await buildEngine(manager, model, state, { ...opts, dtype, dataPrecision, shape, work, metric: layout.metric });
  } catch (e) {
    // A failed preparation (a kernel the driver refuses, data out of the 16-bit range) leaves no device behind.
    Object.values(state).forEach((b: VulkanBuffer) => b.destroy());
    readback.dispose();
    releaseDevice(opts.device, manager);
    throw e;
  }
  const dev: PreparedDevice = { engine, state, readback, layout, ahead: null };
  const release = () => {
    engine.dispose();
    readback.dispose();
    Object.values(state).forEach((b: VulkanBuffer) => b.destroy());
    releaseDevice(opts.device, manager);
  };
  const info = manager.device;
  return {
    // The run's layout as prepared: a run on this runner takes its chains, depth and metric from here.
    plan: { chains: opts.chains, maxDepth: opts.maxDepth, metric: layout.metric, dtype, shape, ...(opts.device !== undefined ? { device: opts.device } : {}), ...(dataPrecision === "f16" ? { dataPrecision } : {}) },
    device: `${info.name} (${info.type})`,
    deviceType: info.type,
    dtype,
    shape,
    source: engine.source,
    counters: engine.counters,
    ...(engine.profile ? { profile: engine.profile } : {}),
    blockIterations: layout.blockIterations,
    ...(dataPrecision === "f16" ? { note: halfDataNote(engine.half) } : {}),
    ...(shape !== "device" && info.type === "cpu"
      ? { warning: `warning: on a CPU implementation of Vulkan shader loops stop after 65,535 iterations, so long trajectories in the fused ${shape}-per-chain kernel come back wrong; use --gpu-shape device (the default on this device)` }
      : {}),
    factory: (ctx) => gpuTransitionRunner(ctx, dev),
    hostDensity: (host) => deviceHostDensity(host, dev),
    dispose() {
      // A run stopped with a block ahead (an error, an interrupt) releases the device once the
      // block is done: its buffers and command sequences are in use until then.
      if (dev.ahead) void dev.ahead.done.catch(() => {}).then(release);
      else release();
    },
  };
}

/** Opens the plan's device (a device left open by an earlier run in this process is reused: device-pool.ts), released again if it cannot run the dtype or the data precision. */
export function openCheckedDevice(device: number | undefined, dtype: "f32" | "f64", dataPrecision: DataPrecision): VulkanManager {
  const manager = openDevice(device);
  if (dtype === "f64" && !manager.device.features.shaderFloat64) {
    releaseDevice(device, manager);
    throw new Error(`device '${manager.device.name}' has no shaderFloat64: use dtype f32`);
  }
  try {
    checkDataPrecision(manager.device, dataPrecision);
  } catch (e) {
    releaseDevice(device, manager);
    throw e;
  }
  return manager;
}

/** The sampler's state buffers for a run's layout, shared by every execution shape. */
function stateBuffers(manager: VulkanManager, layout: BlockLayout & { readonly metric: MetricForm }): StateBuffers {
  const { chains: C, dim: D, blockIterations: K, metric } = layout;
  const bytes = layout.dtype === "f64" ? 8 : 4;
  const buf = (n: number) => manager.buffer(Math.max(4, n * bytes));
  const NSTATS = TRANSITION_STATS.length;
  return {
    q: buf(C * D), g: buf(C * D), lp: buf(C), eps: buf(stepSizeLayout(C).length), minv: buf(C * metricSize(metric, D)),
    ctrl: manager.buffer(32), stats: buf(K * C * NSTATS), draws: buf(K * C * D),
  };
}

/** The engine of the chosen shape: the device shape's controller and batched gradient, or a fused kernel. */
function buildEngine(
  manager: VulkanManager,
  model: GpuModel,
  state: StateBuffers,
  opts: GpuNutsOptions & { dtype: "f32" | "f64"; dataPrecision: DataPrecision; shape: ExecutionShape; work: number; metric: MetricForm },
): Promise<Engine> {
  const { chains, maxDepth, dtype, metric, dataPrecision, profile, shape, work } = opts;
  if (shape === "device") return deviceEngine(manager, model, state, { chains, maxDepth, dtype, controller: opts.controller, metric, dataPrecision, profile });
  return fusedEngine(manager, model, state, {
    chains, maxDepth, dtype, shape, workgroup: opts.workgroup ?? chooseWorkgroup(work), metric, dataPrecision,
    iterationsPerDispatch: opts.iterationsPerDispatch ?? (manager.device.type === "cpu" ? 1 : "block"), profile,
    searchOnDevice: (opts.stepSizeSearch ?? chooseStepSizeSearch(work, chains, manager.device.type)) === "device",
  });
}

// Whether the workgroup shape renders the model's gradient as a row pass, asked only where the
// answer can change the shape (rowPassDecides): building the gradient graph costs time.
function rowPassAt(model: GpuModel, work: number, chains: number, dtype: "f32" | "f64", deviceType: string): boolean {
  if (!rowPassDecides(work, chains, deviceType)) return false;
  const graph = gradientGraph({ logDensity: model.logDensity, q: model.q }, { dtype });
  return rendersRowPass(graph.lp, graph.grad);
}
